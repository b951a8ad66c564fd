<?php
$data = stream_get_contents(STDIN);
$t = preg_split('/\s+/', trim($data));
$n = intval($t[0]);
$tails = [];
$len = 0;
for ($i = 1; $i <= $n; $i++) {
    $v = intval($t[$i]);
    $lo = 0; $hi = $len;
    while ($lo < $hi) { $mid = ($lo + $hi) >> 1; if ($tails[$mid] < $v) $lo = $mid + 1; else $hi = $mid; }
    $tails[$lo] = $v;
    if ($lo === $len) $len++;
}
echo $len, "\n";
