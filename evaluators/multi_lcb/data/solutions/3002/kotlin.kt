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
    val s = if (lines.isEmpty()) "" else strArg(lines[0])
    var ok = true
    var i = 0
    var j = s.length - 1
    while (i < j) { if (s[i] != s[j]) { ok = false; break }; i++; j-- }
    println(if (ok) "true" else "false")
}
