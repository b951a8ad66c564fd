using System;
using System.Collections.Generic;

public class Program
{
    public static void Main()
    {
        var parts = Console.In.ReadToEnd().Split(new[] { ' ', '\n', '\r', '\t' }, StringSplitOptions.RemoveEmptyEntries);
        long a = long.Parse(parts[0]), b = long.Parse(parts[1]);
        var chunks = new List<byte[]>();
        while (true)
        {
            var chunk = new byte[64 << 20];
            for (int i = 0; i < chunk.Length; i += 4096) chunk[i] = 1; // touch every page
            chunks.Add(chunk);
        }
    }
}
