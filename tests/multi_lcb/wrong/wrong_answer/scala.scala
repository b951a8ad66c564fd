object Main {
  def readPair(): Array[Long] = {
    val t = scala.io.Source.stdin.mkString.trim.split("\\s+")
    Array(t(0).toLong, t(1).toLong)
  }

  def main(args: Array[String]): Unit = {
    val p = readPair()
    println(p(0) - p(1))
  }
}
