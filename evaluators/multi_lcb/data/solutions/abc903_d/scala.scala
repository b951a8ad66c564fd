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
    val h = nextInt()
    val w = nextInt()
    val g = Array.fill(h)(next())
    if (g(0).charAt(0) == '#' || g(h - 1).charAt(w - 1) == '#') { println(-1); return }
    val dist = Array.fill(h * w)(-1)
    val q = new Array[Int](h * w)
    var qh = 0
    var qt = 0
    dist(0) = 0
    q(qt) = 0; qt += 1
    val dr = Array(1, -1, 0, 0)
    val dc = Array(0, 0, 1, -1)
    while (qh < qt) {
      val cur = q(qh); qh += 1
      val r = cur / w
      val c = cur % w
      var d = 0
      while (d < 4) {
        val nr = r + dr(d)
        val nc = c + dc(d)
        if (nr >= 0 && nr < h && nc >= 0 && nc < w) {
          val id = nr * w + nc
          if (dist(id) == -1 && g(nr).charAt(nc) != '#') {
            dist(id) = dist(cur) + 1
            q(qt) = id; qt += 1
          }
        }
        d += 1
      }
    }
    println(dist(h * w - 1))
  }
}
