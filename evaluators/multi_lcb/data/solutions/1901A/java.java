public class Main {
    public static void main(String[] args) throws Exception {
        FastReader fr = new FastReader();
        int n = fr.nextInt();
        long best = Long.MIN_VALUE;
        for (int i = 0; i < n; i++) best = Math.max(best, fr.nextLong());
        System.out.println(best);
    }
}

class FastReader {
    private final java.io.InputStream in = System.in;
    private final byte[] buf = new byte[1 << 16];
    private int len = 0, ptr = 0;

    private int read() throws java.io.IOException {
        if (ptr == len) {
            len = in.read(buf, 0, buf.length);
            ptr = 0;
            if (len <= 0) return -1;
        }
        return buf[ptr++];
    }

    long nextLong() throws java.io.IOException {
        int c = read();
        while (c != '-' && (c < '0' || c > '9')) c = read();
        boolean neg = false;
        if (c == '-') {
            neg = true;
            c = read();
        }
        long r = 0;
        while (c >= '0' && c <= '9') {
            r = r * 10 + (c - '0');
            c = read();
        }
        return neg ? -r : r;
    }

    int nextInt() throws java.io.IOException {
        return (int) nextLong();
    }

    String next() throws java.io.IOException {
        int c = read();
        while (c == ' ' || c == '\n' || c == '\r' || c == '\t') c = read();
        StringBuilder sb = new StringBuilder();
        while (c != -1 && c != ' ' && c != '\n' && c != '\r' && c != '\t') {
            sb.append((char) c);
            c = read();
        }
        return sb.toString();
    }
}
