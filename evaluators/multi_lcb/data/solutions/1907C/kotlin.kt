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
    val amount = nextInt()
    val inf = 1 shl 30
    val dp = IntArray(amount + 1) { inf }
    dp[0] = 0
    for (k in 0 until n) {
        val c = nextInt()
        for (x in c..amount) { val v = dp[x - c] + 1; if (v < dp[x]) dp[x] = v }
    }
    println(if (dp[amount] >= inf) -1 else dp[amount])
}
