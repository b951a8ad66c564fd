private fun strArg(line: String): String {
    val a = line.indexOf('"')
    val b = line.lastIndexOf('"')
    return if (a >= 0 && b > a) line.substring(a + 1, b) else ""
}

fun main(args: Array<String>) {
    val lines = System.`in`.bufferedReader().readText().split("\n").filter { it.trim().isNotEmpty() }
    val a = strArg(lines[0])
    val b = strArg(lines[1])
    val m = b.length
    var prev = IntArray(m + 1) { it }
    var cur = IntArray(m + 1)
    for (i in 1..a.length) {
        cur[0] = i
        for (j in 1..m) {
            var best = prev[j - 1] + (if (a[i - 1] == b[j - 1]) 0 else 1)
            if (prev[j] + 1 < best) best = prev[j] + 1
            if (cur[j - 1] + 1 < best) best = cur[j - 1] + 1
            cur[j] = best
        }
        val tmp = prev; prev = cur; cur = tmp
    }
    println(prev[m])
}
