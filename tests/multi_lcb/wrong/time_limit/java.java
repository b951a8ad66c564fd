import java.util.Scanner;

public class Main {
    static volatile long sink = 0;

    public static void main(String[] args) {
        Scanner sc = new Scanner(System.in);
        long a = sc.nextLong(), b = sc.nextLong();
        long x = 0;
        while (x >= 0) { // busy loop: x never becomes negative in practice
            x++;
            sink = x;
            if (x == Long.MAX_VALUE) x = 0;
        }
        System.out.println(a + b);
    }
}
