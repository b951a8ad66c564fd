<?php
$data = stream_get_contents(STDIN);
$lines = array_values(array_filter(array_map('trim', explode("\n", $data)), function ($x) { return $x !== ''; }));
function str_arg($line) {
    $a = strpos($line, '"');
    $b = strrpos($line, '"');
    if ($a === false || $b === false || $b <= $a) return '';
    return substr($line, $a + 1, $b - $a - 1);
}
function int_list($line) {
    preg_match_all('/-?\d+/', $line, $m);
    return array_map('intval', $m[0]);
}
$s = count($lines) > 0 ? str_arg($lines[0]) : '';
echo ($s === strrev($s)) ? 'true' : 'false', "\n";
