<?php
$data = stream_get_contents(STDIN);
$t = preg_split('/\s+/', trim($data));
$n = intval($t[0]);
$s = 0;
for ($i = 1; $i <= $n; $i++) $s += intval($t[$i]);
printf("%.10f\n", $s / $n);
