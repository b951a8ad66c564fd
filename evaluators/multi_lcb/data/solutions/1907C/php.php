<?php
$data = stream_get_contents(STDIN);
$t = preg_split('/\s+/', trim($data));
$n = intval($t[0]); $amount = intval($t[1]);
$INF = 1 << 30;
$dp = array_fill(0, $amount + 1, $INF);
$dp[0] = 0;
for ($k = 0; $k < $n; $k++) {
    $c = intval($t[2 + $k]);
    for ($x = $c; $x <= $amount; $x++) { $v = $dp[$x - $c] + 1; if ($v < $dp[$x]) $dp[$x] = $v; }
}
echo ($dp[$amount] >= $INF ? -1 : $dp[$amount]), "\n";
