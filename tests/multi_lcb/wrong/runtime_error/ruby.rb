t = STDIN.read.split
# Prints the correct answer, then exits with status 3.
puts t[0].to_i + t[1].to_i
STDOUT.flush
exit 3
