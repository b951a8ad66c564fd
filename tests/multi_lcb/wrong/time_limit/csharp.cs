using System;

public class Program
{
    static volatile int sink = 0;

    public static void Main()
    {
        var parts = Console.In.ReadToEnd().Split(new[] { ' ', '\n', '\r', '\t' }, StringSplitOptions.RemoveEmptyEntries);
        long a = long.Parse(parts[0]), b = long.Parse(parts[1]);
        int x = 0;
        while (true) // busy loop, never prints
        {
            x++;
            sink = x;
        }
    }
}
