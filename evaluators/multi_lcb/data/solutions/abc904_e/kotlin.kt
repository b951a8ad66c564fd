private val input: String = System.`in`.bufferedReader().readText()
private var pos = 0

private fun skip() {
    while (pos < input.length && input[pos] <= ' ') pos++
}

private fun next(): String {
    skip()
    val st = pos
    while (pos < input.length && input[pos] > ' ') pos++
    return input.substring(st, pos)
}

private fun nextLong(): Long {
    skip()
    var neg = false
    if (input[pos] == '-') { neg = true; pos++ } else if (input[pos] == '+') pos++
    var r = 0L
    while (pos < input.length && input[pos] > ' ') { r = r * 10 + (input[pos] - '0'); pos++ }
    return if (neg) -r else r
}

private fun nextInt(): Int = nextLong().toInt()

fun main(args: Array<String>) {
    val n = nextInt()
    val m = nextInt()
    val eu = IntArray(m)
    val ev = IntArray(m)
    val ew = LongArray(m)
    val start = IntArray(n + 2)
    for (i in 0 until m) {
        eu[i] = nextInt(); ev[i] = nextInt(); ew[i] = nextLong()
        start[eu[i] + 1]++; start[ev[i] + 1]++
    }
    for (i in 1..n + 1) start[i] += start[i - 1]
    val fill = start.copyOf()
    val to = IntArray(2 * m)
    val wt = LongArray(2 * m)
    for (i in 0 until m) {
        to[fill[eu[i]]] = ev[i]; wt[fill[eu[i]]++] = ew[i]
        to[fill[ev[i]]] = eu[i]; wt[fill[ev[i]]++] = ew[i]
    }
    val inf = Long.MAX_VALUE
    val dist = LongArray(n + 1) { inf }
    val hd = LongArray(2 * m + 2)
    val hv = IntArray(2 * m + 2)
    var hs = 0
    dist[1] = 0
    hd[0] = 0; hv[0] = 1; hs = 1
    while (hs > 0) {
        val d = hd[0]
        val u = hv[0]
        hs--
        val ld = hd[hs]
        val lv = hv[hs]
        var i = 0
        while (true) {
            var c = 2 * i + 1
            if (c >= hs) break
            if (c + 1 < hs && hd[c + 1] < hd[c]) c++
            if (hd[c] >= ld) break
            hd[i] = hd[c]; hv[i] = hv[c]; i = c
        }
        hd[i] = ld; hv[i] = lv
        if (d > dist[u]) continue
        if (u == n) break
        for (e in start[u] until start[u + 1]) {
            val nd = d + wt[e]
            val v = to[e]
            if (nd < dist[v]) {
                dist[v] = nd
                var k = hs++
                while (k > 0) {
                    val p = (k - 1) shr 1
                    if (hd[p] <= nd) break
                    hd[k] = hd[p]; hv[k] = hv[p]; k = p
                }
                hd[k] = nd; hv[k] = v
            }
        }
    }
    println(if (dist[n] == inf) -1L else dist[n])
}
