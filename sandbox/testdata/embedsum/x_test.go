package t
