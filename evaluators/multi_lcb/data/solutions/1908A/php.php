<?php
$data = stream_get_contents(STDIN);
$t = preg_split('/\s+/', trim($data));
$n = intval($t[0]);
$a = [];
for ($i = 1; $i <= $n; $i++) $a[] = intval($t[$i]);
sort($a, SORT_NUMERIC);
$mx = PHP_INT_MIN; $mn = PHP_INT_MAX;
for ($i = 0; $i < intdiv($n, 2); $i++) { $s = $a[$i] + $a[$n - 1 - $i]; if ($s > $mx) $mx = $s; if ($s < $mn) $mn = $s; }
echo $mx - $mn, "\n";
