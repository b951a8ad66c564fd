<?php
$t = preg_split('/\s+/', trim(stream_get_contents(STDIN)));
// Syntax error: rejected by `php -l`.
echo (intval($t[0]) + , "\n";
