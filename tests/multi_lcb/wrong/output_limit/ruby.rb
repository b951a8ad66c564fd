t = STDIN.read.split
chunk = "#{t[0].to_i + t[1].to_i}\n" * 65536
loop do
  STDOUT.write(chunk)
end
