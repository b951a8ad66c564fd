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
        int y = int.Parse(Console.In.ReadToEnd().Trim());
        bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
        Console.WriteLine(leap ? "Yes" : "No");
    }
}
