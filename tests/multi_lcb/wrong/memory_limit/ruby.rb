t = STDIN.read.split
# Keeps allocating 16M-element arrays (every slot written), until killed.
keep = []
loop do
  keep << Array.new(16_000_000, keep.size + 1)
end
