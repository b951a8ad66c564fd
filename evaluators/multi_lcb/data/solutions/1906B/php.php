<?php
$data = stream_get_contents(STDIN);
$t = preg_split('/\s+/', trim($data));
$n = intval($t[0]);
if ($n < 2) { echo "0\n"; exit(0); }
$s = str_repeat("\1", $n + 1);
$s[0] = "\0"; $s[1] = "\0";
for ($i = 4; $i <= $n; $i += 2) $s[$i] = "\0";
for ($i = 3; $i * $i <= $n; $i += 2) {
    if ($s[$i] === "\1") {
        $step = 2 * $i;
        for ($j = $i * $i; $j <= $n; $j += $step) $s[$j] = "\0";
    }
}
echo substr_count($s, "\1"), "\n";
