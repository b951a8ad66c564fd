using System;

public class Program
{
    public static void Main()
    {
        var parts = Console.In.ReadToEnd().Split(' ');
        int sum = "not a number"; // error CS0029: cannot implicitly convert type 'string' to 'int'
        Console.WriteLine(sum);
    }
}
