using System;

public class Program
{
    public static void Main()
    {
        var parts = Console.In.ReadToEnd().Split(new[] { ' ', '\n', '\r', '\t' }, StringSplitOptions.RemoveEmptyEntries);
        long a = long.Parse(parts[0]), b = long.Parse(parts[1]);
        long zero = a - a;
        Console.WriteLine((a + b) / zero); // DivideByZeroException
    }
}
