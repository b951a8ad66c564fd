using System;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using System.Linq;
using System.Text;

public class Program
{
    // binary min-heap of (distance, vertex)
    static long[] hd = new long[16];
    static int[] hv = new int[16];
    static int hs = 0;

    static void Push(long d, int v)
    {
        if (hs == hd.Length)
        {
            Array.Resize(ref hd, hs * 2);
            Array.Resize(ref hv, hs * 2);
        }
        int i = hs++;
        while (i > 0)
        {
            int p = (i - 1) / 2;
            if (hd[p] <= d) break;
            hd[i] = hd[p];
            hv[i] = hv[p];
            i = p;
        }
        hd[i] = d;
        hv[i] = v;
    }

    static void Pop(out long d, out int v)
    {
        d = hd[0];
        v = hv[0];
        hs--;
        long ld = hd[hs];
        int lv = hv[hs];
        int i = 0;
        while (true)
        {
            int c = 2 * i + 1;
            if (c >= hs) break;
            if (c + 1 < hs && hd[c + 1] < hd[c]) c++;
            if (hd[c] >= ld) break;
            hd[i] = hd[c];
            hv[i] = hv[c];
            i = c;
        }
        hd[i] = ld;
        hv[i] = lv;
    }

    public static void Main()
    {
        var fr = new FastReader();
        int n = fr.NextInt(), m = fr.NextInt();
        var head = new int[n + 1];
        for (int i = 0; i <= n; i++) head[i] = -1;
        var next = new int[2 * m];
        var to = new int[2 * m];
        var wt = new long[2 * m];
        int e = 0;
        for (int i = 0; i < m; i++)
        {
            int u = fr.NextInt(), v = fr.NextInt();
            long w = fr.NextLong();
            to[e] = v; wt[e] = w; next[e] = head[u]; head[u] = e++;
            to[e] = u; wt[e] = w; next[e] = head[v]; head[v] = e++;
        }
        var dist = new long[n + 1];
        for (int i = 0; i <= n; i++) dist[i] = long.MaxValue;
        dist[1] = 0;
        Push(0, 1);
        while (hs > 0)
        {
            long d;
            int u;
            Pop(out d, out u);
            if (d > dist[u]) continue;
            for (int i = head[u]; i != -1; i = next[i])
            {
                long nd = d + wt[i];
                if (nd < dist[to[i]])
                {
                    dist[to[i]] = nd;
                    Push(nd, to[i]);
                }
            }
        }
        Console.WriteLine(dist[n] == long.MaxValue ? -1 : dist[n]);
    }
}

class FastReader
{
    private readonly Stream stream = Console.OpenStandardInput();
    private readonly byte[] buf = new byte[1 << 16];
    private int len = 0, ptr = 0;

    private int Read()
    {
        if (ptr == len)
        {
            len = stream.Read(buf, 0, buf.Length);
            ptr = 0;
            if (len <= 0) return -1;
        }
        return buf[ptr++];
    }

    public long NextLong()
    {
        int c = Read();
        while (c != '-' && (c < '0' || c > '9')) c = Read();
        bool neg = false;
        if (c == '-')
        {
            neg = true;
            c = Read();
        }
        long r = 0;
        while (c >= '0' && c <= '9')
        {
            r = r * 10 + (c - '0');
            c = Read();
        }
        return neg ? -r : r;
    }

    public int NextInt() { return (int)NextLong(); }

    public string Next()
    {
        int c = Read();
        while (c == ' ' || c == '\n' || c == '\r' || c == '\t') c = Read();
        var sb = new StringBuilder();
        while (c != -1 && c != ' ' && c != '\n' && c != '\r' && c != '\t')
        {
            sb.Append((char)c);
            c = Read();
        }
        return sb.ToString();
    }
}
