fun readPair(): LongArray {
    val t = System.`in`.bufferedReader().readText().trim().split(Regex("\\s+"))
    return longArrayOf(t[0].toLong(), t[1].toLong())
}

// Keeps allocating 16M-element arrays and filling them, until killed or the heap (-Xmx) runs out.
fun main(args: Array<String>) {
    readPair()
    val keep = ArrayList<LongArray>()
    while (true) {
        val a = LongArray(16 * 1024 * 1024)
        java.util.Arrays.fill(a, keep.size + 1L)
        keep.add(a)
    }
}
