import java.util.*;

public class Main {
    static class Solution {
        int minDistance(String a, String b) {
            int n = a.length(), m = b.length();
            int[] prev = new int[m + 1], cur = new int[m + 1];
            for (int j = 0; j <= m; j++) prev[j] = j;
            for (int i = 1; i <= n; i++) {
                cur[0] = i;
                for (int j = 1; j <= m; j++) {
                    if (a.charAt(i - 1) == b.charAt(j - 1)) cur[j] = prev[j - 1];
                    else cur[j] = 1 + Math.min(prev[j - 1], Math.min(prev[j], cur[j - 1]));
                }
                int[] t = prev;
                prev = cur;
                cur = t;
            }
            return prev[m];
        }
    }

    public static void main(String[] args) throws Exception {
        List<String> lines = Io.lines();
        System.out.println(new Solution().minDistance(Io.str(lines.get(0)), Io.str(lines.get(1))));
    }
}

class Io {
    static java.util.List<String> lines() throws java.io.IOException {
        String text = new String(System.in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        java.util.List<String> out = new java.util.ArrayList<>();
        for (String line : text.split("\n")) {
            String t = line.trim();
            if (!t.isEmpty()) out.add(t);
        }
        return out;
    }

    static long[] intList(String line) {
        String inner = line.substring(line.indexOf('[') + 1, line.lastIndexOf(']')).trim();
        if (inner.isEmpty()) return new long[0];
        String[] parts = inner.split(",");
        long[] out = new long[parts.length];
        for (int i = 0; i < parts.length; i++) out[i] = Long.parseLong(parts[i].trim());
        return out;
    }

    static String str(String line) {
        int a = line.indexOf('"'), b = line.lastIndexOf('"');
        return (a < 0 || b <= a) ? "" : line.substring(a + 1, b);
    }
}
