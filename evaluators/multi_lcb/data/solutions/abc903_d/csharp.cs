using System;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using System.Linq;
using System.Text;

public class Program
{
    public static void Main()
    {
        var fr = new FastReader();
        int h = fr.NextInt(), w = fr.NextInt();
        var g = new string[h];
        for (int i = 0; i < h; i++) g[i] = fr.Next();
        if (g[0][0] != '.' || g[h - 1][w - 1] != '.')
        {
            Console.WriteLine(-1);
            return;
        }
        var dist = new int[h * w];
        for (int i = 0; i < dist.Length; i++) dist[i] = -1;
        var queue = new int[h * w];
        int head = 0, tail = 0;
        dist[0] = 0;
        queue[tail++] = 0;
        int[] dr = { 1, -1, 0, 0 }, dc = { 0, 0, 1, -1 };
        while (head < tail)
        {
            int cur = queue[head++];
            int r = cur / w, c = cur % w;
            for (int k = 0; k < 4; k++)
            {
                int nr = r + dr[k], nc = c + dc[k];
                if (nr < 0 || nr >= h || nc < 0 || nc >= w || g[nr][nc] != '.') continue;
                int idx = nr * w + nc;
                if (dist[idx] >= 0) continue;
                dist[idx] = dist[cur] + 1;
                queue[tail++] = idx;
            }
        }
        Console.WriteLine(dist[h * w - 1]);
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
