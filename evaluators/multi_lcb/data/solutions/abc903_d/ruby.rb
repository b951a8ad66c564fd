t = STDIN.read.split
h = t[0].to_i
w = t[1].to_i
g = t[2, h].join
if g[0] == '#' || g[h * w - 1] == '#'
  puts(-1)
else
  dist = Array.new(h * w, -1)
  dist[0] = 0
  q = [0]
  qh = 0
  while qh < q.size
    cur = q[qh]
    qh += 1
    r, c = cur.divmod(w)
    d = dist[cur] + 1
    if r > 0
      nb = cur - w
      if dist[nb] < 0 && g.getbyte(nb) == 46
        dist[nb] = d
        q << nb
      end
    end
    if r < h - 1
      nb = cur + w
      if dist[nb] < 0 && g.getbyte(nb) == 46
        dist[nb] = d
        q << nb
      end
    end
    if c > 0
      nb = cur - 1
      if dist[nb] < 0 && g.getbyte(nb) == 46
        dist[nb] = d
        q << nb
      end
    end
    if c < w - 1
      nb = cur + 1
      if dist[nb] < 0 && g.getbyte(nb) == 46
        dist[nb] = d
        q << nb
      end
    end
  end
  puts dist[h * w - 1]
end
