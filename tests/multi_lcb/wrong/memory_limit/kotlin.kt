fun readPair(): LongArray {
    val t = System.`in`.bufferedReader().readText().trim().split(Regex("\\s+"))
    return longArrayOf(t[0].toLong(), t[1].toLong())
}

// Keeps allocating memory and writing all of it, until killed. Native memory (Unsafe) is used
// first so that the JVM's own heap cap cannot stop it early; heap arrays are the fallback.
fun main(args: Array<String>) {
    readPair()
    val keep = ArrayList<Any>()
    val chunk = 16L * 1024 * 1024 * 8
    try {
        val cls = Class.forName("sun.misc.Unsafe")
        val f = cls.getDeclaredField("theUnsafe")
        f.isAccessible = true
        val u = f.get(null)
        val alloc = cls.getMethod("allocateMemory", java.lang.Long.TYPE)
        val set = cls.getMethod("setMemory", java.lang.Long.TYPE, java.lang.Long.TYPE, java.lang.Byte.TYPE)
        while (true) {
            val addr = alloc.invoke(u, chunk) as Long
            set.invoke(u, addr, chunk, 7.toByte())
            keep.add(addr)
        }
    } catch (e: Throwable) {
        while (true) {
            val a = LongArray(16 * 1024 * 1024)
            java.util.Arrays.fill(a, keep.size + 1L)
            keep.add(a)
        }
    }
}
