object Main {
  private var input: String = ""
  private var pos = 0

  private def readAll(): String = {
    val in = System.in
    val bos = new java.io.ByteArrayOutputStream()
    val buf = new Array[Byte](1 << 16)
    var r = in.read(buf)
    while (r != -1) { bos.write(buf, 0, r); r = in.read(buf) }
    new String(bos.toByteArray, "UTF-8")
  }

  private def skip(): Unit = {
    while (pos < input.length && input.charAt(pos) <= ' ') pos += 1
  }

  private def next(): String = {
    skip()
    val st = pos
    while (pos < input.length && input.charAt(pos) > ' ') pos += 1
    input.substring(st, pos)
  }

  private def nextLong(): Long = {
    skip()
    var neg = false
    if (input.charAt(pos) == '-') { neg = true; pos += 1 } else if (input.charAt(pos) == '+') pos += 1
    var r = 0L
    while (pos < input.length && input.charAt(pos) > ' ') { r = r * 10 + (input.charAt(pos) - '0'); pos += 1 }
    if (neg) -r else r
  }

  private def nextInt(): Int = nextLong().toInt

  private def argLines(): Array[String] = input.split("\n").map(_.trim).filter(_.nonEmpty)

  private def strArg(line: String): String = {
    val a = line.indexOf('"')
    val b = line.lastIndexOf('"')
    if (a >= 0 && b > a) line.substring(a + 1, b) else ""
  }

  private def intList(line: String): Array[Long] = "-?\\d+".r.findAllIn(line).map(_.toLong).toArray

  def main(args: Array[String]): Unit = {
    input = readAll()
    val n = nextInt()
    val words = Array.fill(n)(next())
    java.util.Arrays.sort(words.asInstanceOf[Array[Object]])
    val sb = new StringBuilder()
    for (wd <- words) sb.append(wd).append('\n')
    print(sb)
  }
}
