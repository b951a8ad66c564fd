fun readPair(): LongArray {
    val t = System.`in`.bufferedReader().readText().trim().split(Regex("\\s+"))
    return longArrayOf(t[0].toLong(), t[1].toLong())
}

fun main(args: Array<String>) {
    val p = readPair()
    val s: Int = "sum" + (p[0] + p[1])
    println(s)
}
