t = STDIN.read.split
n = t[0].to_i
if n < 2
  puts 0
else
  # odd-only sieve: index i represents 2*i+1
  half = (n - 1) / 2
  sieve = Array.new(half + 1, true)
  sieve[0] = false
  i = 1
  while (2 * i + 1) * (2 * i + 1) <= n
    if sieve[i]
      pr = 2 * i + 1
      j = (pr * pr - 1) / 2
      while j <= half
        sieve[j] = false
        j += pr
      end
    end
    i += 1
  end
  puts sieve.count(true) + 1
end
