line = (STDIN.read.split("\n")[0] || '').strip
puts line.split.reverse.join(' ')
