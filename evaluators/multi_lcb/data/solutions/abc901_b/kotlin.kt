fun main(args: Array<String>) {
    val text = System.`in`.bufferedReader().readText()
    val line = text.split("\n")[0].trim()
    val words = line.split(Regex("\\s+")).filter { it.isNotEmpty() }
    println(words.reversed().joinToString(" "))
}
