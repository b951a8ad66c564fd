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
    val st = CharArray(s.length + 1)
    var top = 0
    var ok = true
    for (ch in s) {
        if (ch == '(' || ch == '[' || ch == '{') { st[top++] = ch }
        else if (ch == ')' || ch == ']' || ch == '}') {
            val want = if (ch == ')') '(' else if (ch == ']') '[' else '{'
            if (top == 0 || st[--top] != want) { ok = false; break }
        }
    }
    if (top != 0) ok = false
    println(if (ok) "true" else "false")
}
