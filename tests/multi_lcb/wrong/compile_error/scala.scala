object Main {
  def readPair(): Array[Long] = {
    val t = scala.io.Source.stdin.mkString.trim.split("\\s+")
    Array(t(0).toLong, t(1).toLong)
  }

  def main(args: Array[String]): Unit = {
    val p = readPair()
    val s: Int = "sum" + (p(0) + p(1))
    println(s)
  }
}
