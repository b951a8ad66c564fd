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
        int n = int.Parse(Console.In.ReadToEnd().Trim());
        const long MOD = 1000000007L;
        long a = 0, b = 1;
        for (int i = 0; i < n; i++)
        {
            long t = (a + b) % MOD;
            a = b;
            b = t;
        }
        Console.WriteLine(a);
    }
}
