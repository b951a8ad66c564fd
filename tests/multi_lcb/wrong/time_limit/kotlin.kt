fun readPair(): LongArray {
    val t = System.`in`.bufferedReader().readText().trim().split(Regex("\\s+"))
    return longArrayOf(t[0].toLong(), t[1].toLong())
}

fun main(args: Array<String>) {
    val p = readPair()
    var x = p[0]
    while (true) {
        x = x * 6364136223846793005L + 1442695040888963407L
        if (x == 42L) println(x)
    }
}
