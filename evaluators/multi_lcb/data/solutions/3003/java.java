import java.util.*;

public class Main {
    static class Solution {
        long maxSubArray(long[] nums) {
            long best = nums[0], cur = 0;
            for (long x : nums) {
                cur = cur < 0 ? x : cur + x;
                best = Math.max(best, cur);
            }
            return best;
        }
    }

    public static void main(String[] args) throws Exception {
        List<String> lines = Io.lines();
        System.out.println(new Solution().maxSubArray(Io.intList(lines.get(0))));
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
