object Main {
  def readPair(): Array[Long] = {
    val t = scala.io.Source.stdin.mkString.trim.split("\\s+")
    Array(t(0).toLong, t(1).toLong)
  }

  // Keeps allocating memory and writing all of it, until killed. Native memory (Unsafe) is used
  // first so that the JVM's own heap cap cannot stop it early; heap arrays are the fallback.
  def main(args: Array[String]): Unit = {
    readPair()
    val keep = new java.util.ArrayList[Any]()
    val chunk = 16L * 1024 * 1024 * 8
    try {
      val cls = Class.forName("sun.misc.Unsafe")
      val f = cls.getDeclaredField("theUnsafe")
      f.setAccessible(true)
      val u = f.get(null)
      val alloc = cls.getMethod("allocateMemory", java.lang.Long.TYPE)
      val set = cls.getMethod("setMemory", java.lang.Long.TYPE, java.lang.Long.TYPE, java.lang.Byte.TYPE)
      while (true) {
        val addr = alloc.invoke(u, java.lang.Long.valueOf(chunk))
        set.invoke(u, addr, java.lang.Long.valueOf(chunk), java.lang.Byte.valueOf(7.toByte))
        keep.add(addr)
      }
    } catch {
      case e: Throwable =>
        while (true) {
          val a = new Array[Long](16 * 1024 * 1024)
          java.util.Arrays.fill(a, keep.size + 1L)
          keep.add(a)
        }
    }
  }
}
