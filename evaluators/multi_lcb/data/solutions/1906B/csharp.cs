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
        var composite = new bool[n + 1];
        int count = 0;
        for (int i = 2; i <= n; i++)
        {
            if (composite[i]) continue;
            count++;
            for (long j = (long)i * i; j <= n; j += i) composite[j] = true;
        }
        Console.WriteLine(count);
    }
}
