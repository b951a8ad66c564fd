using System;
using System.IO;
using System.Text;

public class Program
{
    public static void Main()
    {
        var parts = Console.In.ReadToEnd().Split(new[] { ' ', '\n', '\r', '\t' }, StringSplitOptions.RemoveEmptyEntries);
        long a = long.Parse(parts[0]), b = long.Parse(parts[1]);
        byte[] line = Encoding.ASCII.GetBytes(new string('7', 1000) + "\n");
        using (Stream stdout = Console.OpenStandardOutput())
        {
            while (true) stdout.Write(line, 0, line.Length); // endless output
        }
    }
}
