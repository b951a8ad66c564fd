t = STDIN.read.split
n = t[0].to_i
m = t[1].to_i
adj = Array.new(n + 1) { [] }
p = 2
m.times do
  u = t[p].to_i
  v = t[p + 1].to_i
  w = t[p + 2].to_i
  p += 3
  adj[u] << v << w
  adj[v] << u << w
end
inf = 1 << 62
dist = Array.new(n + 1, inf)
dist[1] = 0
hd = [0]
hv = [1]
until hd.empty?
  d = hd[0]
  u = hv[0]
  ld = hd.pop
  lv = hv.pop
  sz = hd.size
  if sz > 0
    i = 0
    loop do
      c = 2 * i + 1
      break if c >= sz
      c += 1 if c + 1 < sz && hd[c + 1] < hd[c]
      break if hd[c] >= ld
      hd[i] = hd[c]
      hv[i] = hv[c]
      i = c
    end
    hd[i] = ld
    hv[i] = lv
  end
  next if d > dist[u]
  break if u == n
  a = adj[u]
  j = 0
  al = a.size
  while j < al
    v = a[j]
    nd = d + a[j + 1]
    j += 2
    if nd < dist[v]
      dist[v] = nd
      i = hd.size
      hd << nd
      hv << v
      while i > 0
        par = (i - 1) >> 1
        break if hd[par] <= nd
        hd[i] = hd[par]
        hv[i] = hv[par]
        i = par
      end
      hd[i] = nd
      hv[i] = v
    end
  end
end
puts(dist[n] == inf ? -1 : dist[n])
