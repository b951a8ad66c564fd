object Main {
  def readPair(): Array[Long] = {
    val t = scala.io.Source.stdin.mkString.trim.split("\\s+")
    Array(t(0).toLong, t(1).toLong)
  }

  // Keeps allocating 16M-element arrays and filling them, until killed or the heap (-Xmx) runs out.
  def main(args: Array[String]): Unit = {
    readPair()
    val keep = new java.util.ArrayList[Array[Long]]()
    while (true) {
      val a = new Array[Long](16 * 1024 * 1024)
      java.util.Arrays.fill(a, keep.size + 1L)
      keep.add(a)
    }
  }
}
