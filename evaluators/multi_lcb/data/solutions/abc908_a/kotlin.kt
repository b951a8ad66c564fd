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
    val y = nextInt()
    println(if ((y % 4 == 0 && y % 100 != 0) || y % 400 == 0) "Yes" else "No")
}
