<?php
$data = stream_get_contents(STDIN);
$t = preg_split('/\s+/', trim($data));
$a = intval($t[0]); $b = intval($t[1]);
$x = $a; $y = $b;
while ($y != 0) { $r = $x % $y; $x = $y; $y = $r; }
echo $x, ' ', intdiv($a, $x) * $b, "\n";
