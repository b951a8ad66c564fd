using System;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using System.Linq;
using System.Text;

public class Solution
{
    public long MaxSubArray(long[] nums)
    {
        long best = nums[0], cur = 0;
        foreach (long x in nums)
        {
            cur = cur < 0 ? x : cur + x;
            if (cur > best) best = cur;
        }
        return best;
    }
}

public class Program
{
    public static void Main()
    {
        var lines = Io.Lines();
        Console.WriteLine(new Solution().MaxSubArray(Io.IntList(lines[0])));
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
