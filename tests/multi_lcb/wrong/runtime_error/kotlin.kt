fun readPair(): LongArray {
    val t = System.`in`.bufferedReader().readText().trim().split(Regex("\\s+"))
    return longArrayOf(t[0].toLong(), t[1].toLong())
}

fun main(args: Array<String>) {
    val p = readPair()
    println(p[0] + p[1])
    System.out.flush()
    throw IllegalStateException("boom")
}
