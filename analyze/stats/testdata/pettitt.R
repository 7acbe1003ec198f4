# Pettitt's K, its split and its asymptotic p-value for the three series of
# TestChangePointsPeerR (analyze/stats/changepoint_test.go), computed from
# ranks in base R (which has no pettitt.test). Run with: Rscript pettitt.R
# R's rank() gives tied values their mean rank, as midRanks does.

pettitt <- function(x) {
  n <- length(x)
  r <- rank(x)
  U <- sapply(1:(n - 1), function(t) 2 * sum(r[1:t]) - t * (n + 1))
  K <- max(abs(U))
  t <- which.max(abs(U)) # the first t reaching K: the first t values come before the split
  p <- min(1, 2 * exp(-6 * K^2 / (n^3 + n^2)))
  cat(sprintf("n=%d t=%d K=%.17g p=%.17g\n", n, t, K, p))
}

# A: a step of 30% after 6 values, with a tie (128).
a <- c(101, 99, 103, 98, 100, 102, 131, 128, 133, 129, 130, 128)

# B: 30 values, a step of about 15% at the 19th, many ties.
b <- c(52, 48, 50, 55, 47, 50, 53, 49, 51, 46, 54, 50, 48, 52, 49, 51, 47, 53,
       58, 61, 57, 60, 63, 58, 59, 62, 56, 60, 61, 58)

# C: 700 values from the Park–Miller generator (exact in doubles: every
# product is below 2^53), modulo 1000, plus 150 from the 401st on.
s <- 12345
c700 <- numeric(700)
for (i in 1:700) {
  s <- (48271 * s) %% 2147483647
  c700[i] <- s %% 1000 + if (i > 400) 150 else 0
}

pettitt(a)
pettitt(b)
pettitt(c700)
