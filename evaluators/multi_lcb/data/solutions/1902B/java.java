import java.util.*;

public class Main {
    public static void main(String[] args) {
        Scanner sc = new Scanner(System.in);
        int n = sc.nextInt();
        final long MOD = 1_000_000_007L;
        long a = 0, b = 1;
        for (int i = 0; i < n; i++) {
            long c = (a + b) % MOD;
            a = b;
            b = c;
        }
        System.out.println(a);
    }
}
