object Main {
  def readPair(): Array[Long] = {
    val t = scala.io.Source.stdin.mkString.trim.split("\\s+")
    Array(t(0).toLong, t(1).toLong)
  }

  def main(args: Array[String]): Unit = {
    val p = readPair()
    var x = p(0)
    while (true) {
      x = x * 6364136223846793005L + 1442695040888963407L
      if (x == 42L) println(x)
    }
  }
}
