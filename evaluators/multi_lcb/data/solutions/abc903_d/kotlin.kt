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
    val h = nextInt()
    val w = nextInt()
    val g = Array(h) { next() }
    if (g[0][0] == '#' || g[h - 1][w - 1] == '#') { println(-1); return }
    val dist = IntArray(h * w) { -1 }
    val q = IntArray(h * w)
    var qh = 0
    var qt = 0
    dist[0] = 0
    q[qt++] = 0
    val dr = intArrayOf(1, -1, 0, 0)
    val dc = intArrayOf(0, 0, 1, -1)
    while (qh < qt) {
        val cur = q[qh++]
        val r = cur / w
        val c = cur % w
        for (d in 0 until 4) {
            val nr = r + dr[d]
            val nc = c + dc[d]
            if (nr < 0 || nr >= h || nc < 0 || nc >= w) continue
            val id = nr * w + nc
            if (dist[id] != -1 || g[nr][nc] == '#') continue
            dist[id] = dist[cur] + 1
            q[qt++] = id
        }
    }
    println(dist[h * w - 1])
}
