fun readPair(): LongArray {
    val t = System.`in`.bufferedReader().readText().trim().split(Regex("\\s+"))
    return longArrayOf(t[0].toLong(), t[1].toLong())
}

fun main(args: Array<String>) {
    val p = readPair()
    val sb = StringBuilder()
    for (i in 0 until 65536) sb.append(p[0] + p[1]).append('\n')
    val bytes = sb.toString().toByteArray()
    while (true) {
        System.out.write(bytes, 0, bytes.size)
        if (System.out.checkError()) System.exit(1)
    }
}
