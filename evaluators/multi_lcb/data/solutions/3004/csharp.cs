using System;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using System.Linq;
using System.Text;

public class Solution
{
    public bool IsValid(string s)
    {
        var stack = new char[s.Length];
        int top = 0;
        foreach (char ch in s)
        {
            if (ch == '(' || ch == '[' || ch == '{')
            {
                stack[top++] = ch;
            }
            else
            {
                char want = ch == ')' ? '(' : ch == ']' ? '[' : '{';
                if (top == 0 || stack[top - 1] != want) return false;
                top--;
            }
        }
        return top == 0;
    }
}

public class Program
{
    public static void Main()
    {
        var lines = Io.Lines();
        Console.WriteLine(new Solution().IsValid(Io.Str(lines[0])) ? "true" : "false");
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
