"""Differentially private k-means (thesis chapter 4): DPLloyd, grid synopses (UGkM, EUGkM, MkM), the hybrid,
sample-and-aggregate (GkM) and PrivGene (PGkM), and the private choice of k."""
from .error_models import (budget_split, count_sum_ratio, dplloyd_mse, epsilon_m, n_rounds, optimal_count_share,
                           swapped_split_epsilon)
from .lloyd import (DPLloyd, best_of_lloyd, project_l1_ball, random_centroids, separated_centroids,
                    sphere_packing_centroids)
from .synopsis import GridSynopsis, noisy_grid_synopsis
from .grid import (EUGkM, MkM, UGkM, cells_per_dimension, eugkm_bias, eugkm_grid_size, eugkm_variance, mkm_grid_size,
                   ugkm_grid_size)
from .hybrid import HYBRID_WEIGHTS, HybridKMeans, hybrid_decision, hybrid_mse
from .sample_aggregate import GkM, PGkM, pgkm_rounds
from .lsh_coreset import LSHCoresetKMeans
from .choose_k import ChooseKResult, choose_k, k_cap, synopsis_rt_validity
