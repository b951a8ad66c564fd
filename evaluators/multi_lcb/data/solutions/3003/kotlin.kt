private val lines: List<String> = System.`in`.bufferedReader().readText().split("\n").map { it.trim() }.filter { it.isNotEmpty() }

private fun strArg(line: String): String {
    val a = line.indexOf('"')
    val b = line.lastIndexOf('"')
    return if (a >= 0 && b > a) line.substring(a + 1, b) else ""
}

private fun intList(line: String): LongArray {
    val m = Regex("-?\\d+").findAll(line).map { it.value.toLong() }.toList()
    return m.toLongArray()
}

fun main(args: Array<String>) {
    val nums = intList(lines[0])
    var best = Long.MIN_VALUE
    var cur = 0L
    for (x in nums) {
        cur = if (cur + x > x) cur + x else x
        if (cur > best) best = cur
    }
    println(best)
}
