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
    val m = nextInt()
    val eu = new Array[Int](m)
    val ev = new Array[Int](m)
    val ew = new Array[Long](m)
    val start = new Array[Int](n + 2)
    var i = 0
    while (i < m) {
      eu(i) = nextInt(); ev(i) = nextInt(); ew(i) = nextLong()
      start(eu(i) + 1) += 1; start(ev(i) + 1) += 1
      i += 1
    }
    i = 1
    while (i <= n + 1) { start(i) += start(i - 1); i += 1 }
    val fill = start.clone()
    val to = new Array[Int](2 * m)
    val wt = new Array[Long](2 * m)
    i = 0
    while (i < m) {
      to(fill(eu(i))) = ev(i); wt(fill(eu(i))) = ew(i); fill(eu(i)) += 1
      to(fill(ev(i))) = eu(i); wt(fill(ev(i))) = ew(i); fill(ev(i)) += 1
      i += 1
    }
    val inf = Long.MaxValue
    val dist = Array.fill(n + 1)(inf)
    val hd = new Array[Long](2 * m + 2)
    val hv = new Array[Int](2 * m + 2)
    dist(1) = 0
    hd(0) = 0; hv(0) = 1
    var hs = 1
    var done = false
    while (hs > 0 && !done) {
      val d = hd(0)
      val u = hv(0)
      hs -= 1
      val ld = hd(hs)
      val lv = hv(hs)
      var k = 0
      var go = true
      while (go) {
        var c = 2 * k + 1
        if (c >= hs) go = false
        else {
          if (c + 1 < hs && hd(c + 1) < hd(c)) c += 1
          if (hd(c) >= ld) go = false
          else { hd(k) = hd(c); hv(k) = hv(c); k = c }
        }
      }
      hd(k) = ld; hv(k) = lv
      if (d <= dist(u)) {
        if (u == n) done = true
        else {
          var e = start(u)
          while (e < start(u + 1)) {
            val nd = d + wt(e)
            val v = to(e)
            if (nd < dist(v)) {
              dist(v) = nd
              var j = hs
              hs += 1
              var up = true
              while (up && j > 0) {
                val p = (j - 1) >> 1
                if (hd(p) <= nd) up = false
                else { hd(j) = hd(p); hv(j) = hv(p); j = p }
              }
              hd(j) = nd; hv(j) = v
            }
            e += 1
          }
        }
      }
    }
    println(if (dist(n) == inf) -1L else dist(n))
  }
}
