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
        int n = fr.NextInt();
        long best = long.MinValue;
        for (int i = 0; i < n; i++) best = Math.Max(best, fr.NextLong());
        Console.WriteLine(best);
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
