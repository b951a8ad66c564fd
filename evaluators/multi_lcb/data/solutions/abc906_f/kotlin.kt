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
    val cap = nextInt()
    val dp = LongArray(cap + 1)
    for (i in 0 until n) {
        val w = nextInt()
        val v = nextLong()
        var j = cap
        while (j >= w) { val c = dp[j - w] + v; if (c > dp[j]) dp[j] = c; j-- }
    }
    println(dp[cap])
}
