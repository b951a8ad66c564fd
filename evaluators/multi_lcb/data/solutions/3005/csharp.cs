using System;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using System.Linq;
using System.Text;

public class Solution
{
    public int MinDistance(string a, string b)
    {
        int n = a.Length, m = b.Length;
        var prev = new int[m + 1];
        var cur = new int[m + 1];
        for (int j = 0; j <= m; j++) prev[j] = j;
        for (int i = 1; i <= n; i++)
        {
            cur[0] = i;
            for (int j = 1; j <= m; j++)
            {
                if (a[i - 1] == b[j - 1]) cur[j] = prev[j - 1];
                else cur[j] = 1 + Math.Min(prev[j - 1], Math.Min(prev[j], cur[j - 1]));
            }
            var t = prev;
            prev = cur;
            cur = t;
        }
        return prev[m];
    }
}

public class Program
{
    public static void Main()
    {
        var lines = Io.Lines();
        Console.WriteLine(new Solution().MinDistance(Io.Str(lines[0]), Io.Str(lines[1])));
    }
}

static class Io
{
    public static List<string> Lines()
    {
        string text = Console.In.ReadToEnd();
        var output = new List<string>();
        foreach (var line in text.Split('\n'))
        {
            var t = line.Trim();
            if (t.Length > 0) output.Add(t);
        }
        return output;
    }

    public static long[] IntList(string line)
    {
        int a = line.IndexOf('['), b = line.LastIndexOf(']');
        string inner = line.Substring(a + 1, b - a - 1).Trim();
        if (inner.Length == 0) return new long[0];
        return inner.Split(',').Select(p => long.Parse(p.Trim(), CultureInfo.InvariantCulture)).ToArray();
    }

    public static string Str(string line)
    {
        int a = line.IndexOf('"'), b = line.LastIndexOf('"');
        return (a < 0 || b <= a) ? "" : line.Substring(a + 1, b - a - 1);
    }
}
