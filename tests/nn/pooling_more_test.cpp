// ---- pooling batch (stop 46) ----
// Max pooling with indices (1-D to 3-D, adaptive 1-D to 3-D), max_unpool, conv_transpose3d,
// lp_pool and fractional_max_pool: values and indices against PyTorch 1.13 (printed by
// tests/nn/pooling_more_cases.py, float64), gradients against finite differences or PyTorch, the
// modules and the messages, on every device.
#include <sstream>

#include "autograd/gradcheck.h"

using namespace locus;
namespace F = locus::nn::functional;

namespace pooling_more_test {
using V = std::vector<Tensor>;
using D = std::vector<double>;

namespace {
// clang-format off
// max_pool2d k3 s2 p1 values [1, 2, 3, 4]
const D max_pool2d_k3_s2_p1_values{0.5240443417, 0.8956986857, 0.9958808445, 0.961275203, 0.9964756147, 0.9593748339,
    0.6793046521, 0.8987080958, 0.9964756147, 0.9593748339, 0.5182282059, 0.01362896368, 0.6842898458, 0.9970241088,
    0.9970241088, 0.7882520674, 0.9554405264, 0.7840403585, 0.9046015706, 0.9975263011, 0.9554405264, 0.7840403585,
    0.160452006, 0.3868920435};
// max_pool2d k3 s2 p1 indices [1, 2, 3, 4]
const D max_pool2d_k3_s2_p1_indices{7, 3, 4, 5, 21, 22, 19, 20, 21, 22, 24, 34, 1, 3, 3, 5, 21, 22, 19, 20, 21, 22,
    24, 34};
// max_pool2d k3 s2 ceil values [1, 2, 2, 3]
const D max_pool2d_k3_s2_ceil_values{0.6742879116, 0.9958808445, 0.9958808445, 0.9964756147, 0.7924271699,
    0.8987080958, 0.9016757701, 0.9970241088, 0.9975263011, 0.9554405264, 0.6892432612, 0.9975263011};
// max_pool2d k3 s2 ceil indices [1, 2, 2, 3]
const D max_pool2d_k3_s2_ceil_indices{2, 4, 4, 21, 23, 20, 2, 3, 20, 21, 18, 20};
// max_pool2d k2 s1 d2 values [1, 2, 3, 5]
const D max_pool2d_k2_s1_d2_values{0.6742879116, 0.8956986857, 0.9958808445, 0.961275203, 0.9958808445, 0.9964756147,
    0.9593748339, 0.7924271699, 0.5182282059, 0.1738894854, -0.35525356, 0.006814640075, 0.3679605106, 0.6793046521,
    0.8987080958, 0.9016757701, 0.9970241088, 0.9574299116, 0.9970241088, 0.9975263011, 0.9554405264, 0.7840403585,
    0.5065240063, 0.160452006, -0.2073364206, 0.02044265436, 0.3805991098, 0.6892432612, 0.9046015706, 0.9975263011};
// max_pool2d k2 s1 d2 indices [1, 2, 3, 5]
const D max_pool2d_k2_s1_d2_indices{2, 3, 4, 5, 4, 21, 22, 23, 24, 25, 16, 17, 18, 19, 20, 2, 3, 4, 3, 20, 21, 22,
    23, 24, 25, 16, 17, 18, 19, 20};
// max_pool2d ties k2 s1 values [1, 1, 3, 3]
const D max_pool2d_ties_k2_s1_values{3, 3, 3, 3, 2, 3, 2, 2, 2};
// max_pool2d ties k2 s1 indices [1, 1, 3, 3]
const D max_pool2d_ties_k2_s1_indices{1, 1, 2, 4, 9, 7, 8, 9, 10};
// max_pool1d k3 s2 p1 values [2, 3, 5]
const D max_pool1d_k3_s2_p1_values{1, 0.8196480178, -0.2563109082, -0.4280996815, 0.1668273259, 0.9832684384,
    0.9832684384, 0.5089647069, -0.6334613254, -0.5855629025, 0.5600330667, 0.9704688648, 0.9704688648, 0.1069619279,
    -0.8969548417, -0.1974534985, 0.8527565521, 0.9981738128, 0.7835458221, -0.3142321745, -0.8370915447,
    0.2260834079, 0.9924767476, 0.9924767476, 0.4560374173, -0.6790461103, -0.5355257846, 0.6090559761, 0.9541247755,
    0.9541247755};
// max_pool1d k3 s2 p1 indices [2, 3, 5]
const D max_pool1d_k3_s2_p1_indices{0, 1, 3, 7, 8, 1, 1, 3, 5, 8, 1, 3, 3, 5, 7, 1, 3, 4, 5, 7, 1, 3, 5, 5, 7, 0, 3,
    5, 7, 7};
// max_pool1d k2 ceil values [2, 3, 5]
const D max_pool1d_k2_ceil_values{1, 0.3436457463, -0.7638152021, -0.4280996815, 0.1668273259, 0.9832684384,
    0.9102889977, -0.07594517146, -0.9443372867, -0.5855629025, 0.5600330667, 0.9704688648, 0.6572521188,
    -0.4819098543, -0.9884646619, -0.1974534985, 0.8527565521, 0.9981738128, 0.2862897472, -0.8014093051,
    -0.8370915447, 0.2260834079, 0.9924767476, 0.8836196351, -0.1360393048, -0.6790461103, -0.5355257846,
    0.6090559761, 0.9541247755, 0.6105246513};
// max_pool1d k2 ceil indices [2, 3, 5]
const D max_pool1d_k2_ceil_indices{0, 2, 4, 7, 8, 1, 2, 4, 7, 8, 1, 3, 4, 6, 8, 1, 3, 4, 6, 8, 1, 3, 5, 6, 8, 0, 3,
    5, 7, 8};
// max_pool3d k3 s2 p1 values [1, 2, 2, 3, 3]
const D max_pool3d_k3_s2_p1_values{0.9958808445, 0.9903268042, 0.9978215791, 0.9958808445, 0.9903268042,
    0.8257849931, 0.1825991346, 0.6001026165, 0.892847762, 0.9999743176, 0.9999743176, 0.9978215791, 0.8648130747,
    0.727573291, 0.817616343, 0.9882362465, 0.9970781712, 0.9967734946, 0.5432756692, 0.3375697353, -0.1154083807,
    0.9553636228, 0.9975574189, 0.9999946302, 0.9729140543, 0.9975574189, 0.9999946302, -0.04246803472, 0.203094781,
    0.6166794071, 0.9962260044, 0.9999058656, 0.9999058656, 0.9962260044, 0.9975574189, 0.987212649};
// max_pool3d k3 s2 p1 indices [1, 2, 2, 3, 3]
const D max_pool3d_k3_s2_p1_indices{6, 7, 34, 6, 7, 9, 55, 57, 59, 61, 61, 34, 36, 37, 113, 115, 116, 88, 0, 1, 3,
    49, 50, 23, 24, 50, 23, 30, 99, 101, 78, 105, 105, 78, 50, 51};
// max_pool3d k2 s(2,1,2) d(1,2,1) ceil values [1, 2, 2, 3, 3]
const D max_pool3d_k2_s_2_1_2_d_1_2_1_ceil_values{0.8115585421, 0.9865851128, 0.9978215791, 0.9958808445,
    0.932615014, 0.6754631806, 0.2778859258, 0.6001026165, 0.892847762, 0.9999743176, 0.9752752764, 0.775788193,
    0.4150186194, 0.4770180858, 0.817616343, 0.9882362465, 0.9970781712, 0.9967734946, 0.5432756692, 0.3437319825,
    0.7248992714, 0.9553636228, 0.9975574189, 0.9999946302, 0.9729140543, 0.7691558575, 0.7248992714, 0.9020594648,
    0.9999058656, 0.9897795855, 0.9962260044, 0.8541373613, 0.6166794071, 0.9020594648, 0.9999058656, 0.9897795855};
// max_pool3d k2 s(2,1,2) d(1,2,1) ceil indices [1, 2, 2, 3, 3]
const D max_pool3d_k2_s_2_1_2_d_1_2_1_ceil_indices{31, 33, 34, 6, 8, 10, 12, 57, 59, 61, 62, 64, 66, 111, 113, 115,
    116, 88, 0, 45, 47, 49, 50, 23, 24, 26, 47, 103, 105, 77, 78, 80, 101, 103, 105, 77};
// adaptive_max_pool1d 4 values [2, 3, 4]
const D adaptive_max_pool1d_4_values{1, 0.3436457463, -0.7638152021, 0.1668273259, 0.9832684384, 0.9102889977,
    -0.07594517146, -0.5855629025, 0.9336336441, 0.9704688648, 0.6572521188, -0.4819098543, 0.3997466225,
    0.9981738128, 0.9981738128, 0.2862897472, -0.3727259284, 0.7433435627, 0.9924767476, 0.8836196351, -0.6790461103,
    0.04485473637, 0.9535683108, 0.9541247755};
// adaptive_max_pool1d 4 indices [2, 3, 4]
const D adaptive_max_pool1d_4_indices{0, 2, 4, 8, 1, 2, 4, 8, 2, 3, 4, 6, 2, 4, 4, 6, 2, 4, 5, 6, 0, 4, 6, 7};
// adaptive_max_pool2d (3,4) values [1, 2, 3, 4]
const D adaptive_max_pool2d_3_4_values{0.5240443417, 0.8956986857, 0.9958808445, 0.961275203, 0.9964756147,
    0.9593748339, 0.6793046521, 0.8987080958, 0.9964756147, 0.9593748339, 0.5182282059, 0.01362896368, 0.6842898458,
    0.9970241088, 0.9970241088, 0.7882520674, 0.9554405264, 0.7840403585, 0.9046015706, 0.9975263011, 0.9554405264,
    0.7840403585, 0.160452006, 0.3868920435};
// adaptive_max_pool2d (3,4) indices [1, 2, 3, 4]
const D adaptive_max_pool2d_3_4_indices{7, 3, 4, 5, 21, 22, 19, 20, 21, 22, 24, 34, 1, 3, 3, 5, 21, 22, 19, 20, 21,
    22, 24, 34};
// adaptive_max_pool2d ties (3,3) values [1, 1, 3, 3]
const D adaptive_max_pool2d_ties_3_3_values{3, 3, 3, 3, 2, 3, 2, 2, 2};
// adaptive_max_pool2d ties (3,3) indices [1, 1, 3, 3]
const D adaptive_max_pool2d_ties_3_3_indices{1, 1, 2, 4, 9, 7, 8, 9, 10};
// adaptive_max_pool3d (3,2,4) values [1, 2, 3, 2, 4]
const D adaptive_max_pool3d_3_2_4_values{0.9958808445, 0.9903268042, 0.9978215791, 0.9978215791, 0.2778859258,
    0.4019352805, 0.7666642221, 0.892847762, 0.9999743176, 0.9999743176, 0.9978215791, 0.9978215791, 0.7176654126,
    0.8575275246, 0.9967734946, 0.9967734946, 0.9999743176, 0.9999743176, 0.8992112075, 0.775788193, 0.9882362465,
    0.9970781712, 0.9967734946, 0.9967734946, 0.5432756692, 0.3375697353, 0.5487666306, 0.7248992714, 0.9729140543,
    0.9975574189, 0.987212649, 0.9999946302, 0.4861711353, 0.6725897608, 0.9312042374, 0.9897795855, 0.9962260044,
    0.9975574189, 0.987212649, 0.9897795855, 0.9020594648, 0.9767027701, 0.9999058656, 0.9897795855, 0.9962260044,
    0.9767027701, 0.9999058656, 0.9897795855};
// adaptive_max_pool3d (3,2,4) indices [1, 2, 3, 2, 4]
const D adaptive_max_pool3d_3_2_4_indices{6, 7, 34, 34, 12, 56, 58, 59, 61, 61, 34, 34, 85, 86, 88, 88, 61, 61, 63,
    64, 115, 116, 88, 88, 0, 1, 46, 47, 24, 50, 51, 23, 73, 74, 76, 77, 78, 50, 51, 77, 103, 104, 105, 77, 78, 104,
    105, 77};
// max_unpool2d k2 [1, 2, 4, 6]
const D max_unpool2d_k2{0, 0, 0, 0.8956986857, 0.9958808445, 0, 0, 0.5240443417, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0.6793046521, 0, 0.9964756147, 0, 0.7924271699, 0, 0.6842898458, 0, 0.9970241088, 0.9574299116, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0.9046015706, 0, 0.9554405264, 0, 0.5065240063};
// max_unpool2d k2 output_size (5,7) [1, 2, 5, 7]
const D max_unpool2d_k2_output_size_5_7{0, 0, 0, 0.8956986857, 0.9958808445, 0, 0, 0.5240443417, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0.6793046521, 0, 0.9964756147, 0, 0.7924271699, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0.6842898458, 0,
    0.9970241088, 0.9574299116, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0.9046015706, 0, 0.9554405264, 0,
    0.5065240063, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
// max_unpool1d k3 s2 p1 [2, 3, 9]
const D max_unpool1d_k3_s2_p1{1, 0.8196480178, 0, -0.2563109082, 0, 0, 0, -0.4280996815, 0.1668273259, 0,
    0.9832684384, 0, 0.5089647069, 0, -0.6334613254, 0, 0, -0.5855629025, 0, 0.5600330667, 0, 0.9704688648, 0,
    0.1069619279, 0, -0.8969548417, 0, 0, -0.1974534985, 0, 0.8527565521, 0.9981738128, 0.7835458221, 0,
    -0.3142321745, 0, 0, -0.8370915447, 0, 0.2260834079, 0, 0.9924767476, 0, 0.4560374173, 0, -0.6790461103, 0, 0,
    -0.5355257846, 0, 0.6090559761, 0, 0.9541247755, 0};
// max_unpool3d shape [1, 2, 5, 5, 7]
// max_unpool3d nonzero positions [24]
const D max_unpool3d_nonzero_positions{6, 12, 14, 33, 34, 53, 61, 62, 64, 109, 111, 113, 175, 177, 179, 198, 224,
    225, 252, 253, 272, 274, 276, 280};
// max_unpool3d nonzero values [24]
const D max_unpool3d_nonzero_values{0.9958808445, 0.2778859258, -0.1774624248, 0.9865851128, 0.9978215791,
    -0.2728657953, 0.9999743176, 0.9752752764, 0.775788193, 0.03725015134, 0.4770180858, 0.817616343, 0.5432756692,
    0.1140849451, -0.3388234692, 0.9999946302, 0.9553636228, 0.9975574189, 0.9897795855, 0.9962260044, -0.2527122356,
    0.203094781, 0.6166794071, 0.9999058656};
// conv_transpose3d channel sums [2, 6]
const D conv_transpose3d_channel_sums{56.908383, -26.19331445, 10.91004129, 124.9512551, -184.390649, 93.33200804,
    64.77305762, -33.52927244, 16.88515906, 120.5838747, -181.9837312, 93.1585716};
// conv_transpose3d y[1, 4, 2] [6, 4]
const D conv_transpose3d_y_1_4_2{-1.806677403, -1.875504232, -2.089891694, -2.139613084, -2.332244476, -2.323562804,
    -2.251210969, -2.21291247, -2.225525787, -2.255015974, -2.357087172, -2.346290672, -2.19574365, -2.116123817,
    -1.929582779, -1.832834343, -2.407073041, -2.387581093, -2.343951121, -2.276167992, -1.831682678, -1.707166317,
    -1.46744893, -1.343894524};
// conv_transpose3d y[0, :, 4, 5, 3] [6]
const D conv_transpose3d_y_0_4_5_3{0.5835753436, -0.05173632952, -0.3326134775, 1.755748211, -2.378115583, 1.6508776};
// conv_transpose3d shape [2, 6, 5, 6, 4]
// conv_transpose3d grad x sums [2, 4]
const D conv_transpose3d_grad_x_sums{9.712050292, 1.83839148, -3.902777711, 9.100083483, -12.0561807, -0.5630569181,
    0.6652635068, -5.82905251};
// conv_transpose3d plain [1, 3, 4, 3, 4]
const D conv_transpose3d_plain{-0.4692862182, -0.3612717491, 0.355013604, 0.4537086114, 0.5804746869, 2.135039839,
    2.942928231, 1.61408249, 0.8061264097, 1.6768374, 1.507196236, 0.5705797975, 1.666960328, 3.108260149,
    2.374847219, 0.72791518, 1.910143739, 1.897386628, -0.6333316692, -1.351290214, -0.3883386353, -1.811918781,
    -2.756767271, -1.594788311, -1.319441102, -3.165823051, -3.314544147, -1.511969528, -3.051752575, -5.224884859,
    -3.425190988, -0.7255011442, -0.7145591251, -0.3236735075, 1.008549559, 1.001392102, -0.07904578182,
    0.4415789649, 1.077882936, 0.7524308347, 1.191206343, 3.044779062, 3.350993294, 1.602872702, 0.896358822,
    1.617717869, 1.159910133, 0.3187621042, 0.1917107961, -0.2257254488, -0.8820657542, -0.6599269543, -1.048066043,
    -2.808221053, -3.19911014, -1.54809947, -0.8304056501, -1.52148521, -1.129731325, -0.3114059461, -1.569949636,
    -2.558539511, -1.504689512, -0.2097172181, -0.9977882997, 0.1420933535, 2.602375131, 2.177777795, 0.8780206841,
    2.575121014, 3.14574549, 1.601920233, 1.57549301, 3.317411578, 3.031291699, 1.197824053, 2.637901981,
    3.796920048, 1.52682261, -0.3062174619, 0.1868715025, -0.76051775, -1.953061156, -1.353771232, -0.2127235634,
    -0.984025895, -1.498856898, -0.8803676895, -1.524529397, -3.36543642, -3.232874784, -1.360307066, -0.8253383239,
    -1.292456639, -0.6801757769, -0.04308892563, 0.1076105354, 0.7871184281, 1.309064479, 0.7912892536, 1.396774427,
    3.162863501, 3.092414419, 1.306514286, 0.7604913117, 1.193549733, 0.6241200847, 0.01690906844, 1.294858297,
    1.718601685, 0.4638536672, -0.332269136, -0.02774706709, -2.165455571, -4.276229095, -2.757238295, -1.268108143,
    -3.046225205, -3.177899276, -1.427345058, -1.652835483, -3.09270345, -2.404197402, -0.7478084345, -1.92483205,
    -1.93826755, 0.5447344819, 1.303201576, 0.3620131046, 1.758442869, 2.676035459, 1.552591006, 0.4803635043,
    1.414853979, 1.74981432, 0.9084437313, 1.684923859, 3.304349626, 2.748048696, 0.9634407098, 0.6606990378,
    0.8205910156, 0.1232885374, -0.2374718643};
// lp_pool2d p2 k(3,2) s(2,1) [1, 2, 2, 6]
const D lp_pool2d_p2_k_3_2_s_2_1{1.297191224, 1.10779569, 1.303455976, 1.688576264, 2.020239319, 2.17849056,
    2.176412267, 2.010640632, 1.674274817, 1.290990843, 1.107944312, 1.309783021, 1.108241469, 1.316170295,
    1.702790043, 2.029594691, 2.180269421, 2.114394718, 2.000802312, 1.659894198, 1.278791578, 1.108686987,
    1.322615745, 1.709861468};
// lp_pool2d p3 k2 ceil [1, 2, 3, 4]
const D lp_pool2d_p3_k2_ceil{0.714317439, 1.199286306, 1.644042851, 1.596471689, 1.579483413, 1.014008077,
    0.8534875584, 1.358260355, 1.573605704, 1.658345343, 1.023871376, 0.1803747365, 0.8596895692, 1.494730003,
    1.639344597, 1.33493901, 1.337112057, 0.7071008265, 1.217664721, 1.608923138, 1.715781454, 1.402405635,
    0.5539280868, 0.7728929421};
// lp_pool1d p2 k3 s2 [2, 3, 4]
const D lp_pool1d_p2_k3_s2{1.337877151, 0.8759003046, 1.526279868, 0.9826408537, 1.512499935, 1.045676241,
    1.154737717, 1.470045952, 1.08883027, 1.498486552, 0.8219843729, 1.419093895, 0.8497871374, 1.372349103,
    1.300867724, 0.907171733, 1.355978227, 0.8617412473, 1.522614004, 1.003623674, 1.505759922, 1.067824414,
    1.132366395, 1.480671118};
// lp_pool1d p1.5 k2 [2, 3, 4]
const D lp_pool1d_p1_5_k2{1.447802514, 0.478708556, 1.402683297, 1.058900966, 1.346609446, 1.148983357, 0.6508729095,
    1.513480496, 0.5617630932, 1.511428557, 0.6857126752, 1.11919934, 0.7906639854, 1.02663566, 1.419281984,
    0.4768925511, 1.460565738, 0.4824015342, 1.3848166, 1.090372127, 1.325143558, 1.177830023, 0.6171442582,
    1.514137038};
// fractional_max_pool2d k(2,3) out(4,5) values [2, 3, 4, 5]
const D fractional_max_pool2d_k_2_3_out_4_5_values{0.8723554823, 0.9998156151, 0.9998156151, 0.9998156151,
    0.9953937773, 0.9368910801, 0.9851015087, 0.9851015087, 0.9851015087, 0.3315662631, 0.7111612229, 0.2581903536,
    0.2284098853, 0.6892432612, 0.9689995092, 0.5952037581, 0.1073121488, 0.3747002636, 0.7919972539, 0.9919813973,
    0.9987548458, 0.9987548458, 0.9987548458, 0.8869525138, 0.9996380413, 0.9946257753, 0.9946257753, 0.9946257753,
    0.8058295841, 0.08441695733, 0.3242893841, 0.160633284, 0.6375640983, 0.9395563398, 0.983747608, 0.1757140263,
    0.3097799804, 0.7479456383, 0.9808855898, 0.9808855898, 0.9929254755, 0.9929254755, 0.9167297505, 0.9991094877,
    0.9991094877, 0.9994011554, 0.9994011554, 0.844797684, 0.4583936744, 0.5187649725, 0.09208973161, 0.5828408562,
    0.9136686919, 0.9937987587, 0.9937987587, 0.2433806384, 0.7003229219, 0.9651064989, 0.9651064989, 0.9650785002,
    0.9823553369, 0.9938106398, 0.9938106398, 0.9938106398, 0.9136252352, 0.9994048488, 0.9991049715, 0.9991049715,
    0.9991049715, 0.8406509764, 0.9929127763, 0.3817319385, 0.09975704187, 0.5890827337, 0.9167724536, 0.6493564815,
    0.9808647825, 0.9808647825, 0.9808647825, 0.9670948977, 0.9630320442, 0.9837667974, 0.9837667974, 0.9837667974,
    0.6374817374, 0.9104665111, 0.9996409117, 0.9996409117, 0.9996409117, 0.5120725312, 0.8364543899, 0.4446480166,
    0.03080652411, 0.5318734849, 0.998749507, 0.9198218199, 0.9919678809, 0.9919678809, 0.9919678809, 0.9793360288,
    0.9690259153, 0.9690259153, 0.9609284481, 0.6891658034, 0.2283058077, 0.6315281043, 0.3316671163, 0.7630831091,
    0.9851198875, 0.9851198875, 0.9954040204, 0.9954040204, 0.9072537658, 0.9998176622, 0.9998176622, 0.9983347831,
    0.9983347831, 0.9228166099, 0.9909641285, 0.9909641285};
// fractional_max_pool2d k(2,3) out(4,5) indices [2, 3, 4, 5]
const D fractional_max_pool2d_k_2_3_out_4_5_indices{2, 3, 3, 3, 15, 26, 27, 27, 27, 29, 40, 41, 36, 37, 39, 64, 65,
    60, 61, 62, 2, 2, 2, 3, 14, 26, 26, 26, 27, 23, 40, 35, 36, 37, 38, 64, 59, 60, 61, 61, 1, 1, 2, 13, 13, 25, 25,
    26, 27, 23, 34, 35, 36, 37, 37, 58, 59, 60, 60, 61, 0, 12, 12, 12, 13, 24, 36, 36, 36, 37, 48, 50, 45, 46, 47,
    58, 60, 60, 60, 71, 0, 11, 11, 11, 13, 24, 35, 35, 35, 37, 48, 49, 44, 45, 47, 58, 59, 59, 59, 71, 10, 10, 11,
    12, 13, 24, 20, 21, 22, 22, 34, 34, 35, 46, 46, 58, 58, 69, 70, 70};
// fractional_max_pool2d k2 ratio(0.5,0.7) values [2, 3, 4, 5]
const D fractional_max_pool2d_k2_ratio_0_5_0_7_values{0.5055333412, 0.8723554823, 0.9998156151, 0.8529404816,
    0.9953937773, 0.8103668559, 0.9368910801, 0.9851015087, 0.7630140137, -0.1908585814, 0.7111612229, 0.2581903536,
    0.2284098853, 0.6892432612, 0.9689995092, 0.5952037581, 0.1073121488, 0.3747002636, 0.7919972539, 0.9919813973,
    0.8365129715, 0.9987548458, 0.8869525138, 0.8760952733, 0.9996380413, 0.9105107189, 0.9946257753, 0.8058295841,
    0.3959251502, 0.08441695733, 0.3242893841, -0.1984140969, 0.6375640983, 0.9395563398, 0.983747608, 0.1757140263,
    -0.2133849235, 0.7479456383, 0.9808855898, 0.9446844061, 0.9929254755, 0.9929254755, 0.8407088674, 0.9991094877,
    0.8833685929, 0.9994011554, 0.9994011554, 0.4583936744, -0.05378707729, 0.5187649725, -0.1302565588,
    0.09208973161, 0.9136686919, 0.9937987587, 0.8012444994, -0.2803418506, 0.2433806384, 0.9651064989, 0.9651064989,
    0.753036242, 0.9823553369, 0.8013084585, 0.9938106398, 0.9136252352, 0.5827539855, 0.9994048488, 0.8834186907,
    0.9991049715, 0.8406509764, 0.4515342411, 0.9929127763, 0.3817319385, -0.137889843, 0.5890827337, 0.9167724536,
    0.1758192644, 0.9447194626, 0.9808647825, 0.7478746766, 0.9670948977, 0.9630320442, 0.7580821654, 0.9837667974,
    0.9395197317, 0.160527769, 0.9104665111, 0.8489507665, 0.9996409117, 0.8760437266, 0.007595874393, 0.8364543899,
    0.4446480166, 0.03080652411, 0.5318734849, 0.998749507, 0.5952896587, 0.9198218199, 0.9919678809, 0.7919319829,
    0.9793360288, 0.7427390807, 0.9690259153, 0.9609284481, 0.6891658034, -0.2655212342, 0.6315281043, 0.1529201278,
    0.3316671163, 0.7630831091, 0.9851198875, 0.8104294878, 0.9954040204, 0.9072537658, 0.8529962806, 0.9998176622,
    0.8905324456, 0.9983347831, 0.8322081736, 0.9228166099, 0.9909641285};
// fractional_max_pool2d k2 ratio(0.5,0.7) indices [2, 3, 4, 5]
const D fractional_max_pool2d_k2_ratio_0_5_0_7_indices{1, 2, 3, 4, 15, 16, 26, 27, 28, 30, 40, 41, 36, 37, 39, 64,
    65, 60, 61, 62, 1, 2, 3, 13, 14, 25, 26, 27, 28, 23, 40, 41, 36, 37, 38, 64, 58, 60, 61, 62, 1, 1, 12, 13, 14,
    25, 25, 27, 28, 23, 40, 34, 36, 37, 38, 57, 58, 60, 60, 71, 0, 11, 12, 13, 14, 24, 35, 36, 37, 38, 48, 50, 51,
    46, 47, 57, 59, 60, 61, 71, 0, 10, 11, 12, 14, 24, 34, 35, 36, 38, 48, 49, 44, 45, 47, 57, 58, 59, 60, 71, 0, 10,
    11, 12, 7, 24, 25, 20, 21, 22, 33, 34, 35, 45, 46, 57, 58, 59, 69, 70};
// fractional_max_pool3d values [2, 2, 3, 4, 3]
const D fractional_max_pool3d_values{1, 0.9897030198, 0.8886650519, 0.996542097, 0.9743876327, 0.9236933529,
    0.9981738128, 0.9981738128, 0.9236933529, 0.9981738128, 0.9981738128, 0.8474909158, 0.9997414294, 0.9997414294,
    0.8268803262, 0.9997414294, 0.9997414294, 0.9085951445, 0.9821715841, 0.9927019211, 0.9085951445, 0.9943950283,
    0.9943950283, 0.8707486999, 0.9631556319, 0.9992893318, 0.9836043102, 0.9374786821, 0.9989658513, 0.9652187486,
    0.9374786821, 0.9989658513, 0.9951874553, 0.9374786821, 0.9989658513, 0.9951874553, 0.851594721, 0.9567909833,
    0.999888077, 0.8224802685, 0.9567909833, 0.999888077, 0.8922055167, 0.9567909833, 0.999888077, 0.8922055167,
    0.9293220413, 0.9976736669, 0.976107568, 0.8632944654, 0.9971583371, 0.976107568, 0.8632944654, 0.9958655442,
    0.976107568, 0.8632944654, 0.999969739, 0.9907866016, 0.9022445459, 0.999969739, 0.9995342754, 0.961199244,
    0.9670715305, 0.9986135473, 0.9349548782, 0.9670715305, 0.9986135473, 0.9807961424, 0.9670715305, 0.9935424185,
    0.9807961424, 0.9425808454, 0.9985819115, 0.9672234484, 0.8742578115, 0.9985819115, 0.9672234484, 0.8436568076,
    0.9985819115, 0.9672234484, 0.8436568076, 0.9995523332, 0.9849775067, 0.8853487993, 0.954499925, 0.9999742095,
    0.9501180923, 0.9759775437, 0.9959196516, 0.9209178905, 0.9759775437, 0.9971131397, 0.9727474618, 0.9264211701,
    0.9971131397, 0.9727474618, 0.8919354661, 0.9998789579, 0.9998789579, 0.8919354661, 0.9998789579, 0.9998789579,
    0.8228200295, 0.9998789579, 0.9998789579, 0.8512813095, 0.9977142272, 0.9977142272, 0.9376865031, 0.8391296814,
    0.9989928436, 0.9376865031, 0.8814229883, 0.991810219, 0.9055719686, 0.8814229883, 0.9992666276, 0.9633161797,
    0.835530045, 0.9992666276, 0.9822837485, 0.8782939001, 0.9926296776, 0.9997548397, 0.9453455407, 0.9926296776,
    0.9997548397, 0.9453455407, 0.9588546504, 0.9944580335, 0.9149836451, 0.9791278932, 0.9981375355, 0.9965915728,
    0.8590362445, 0.9965915728, 0.9965915728, 0.8986004729, 0.9896173058, 0.9862910903, 0.8986004729, 0.9999998214,
    0.9999998214, 0.8142255347};
// fractional_max_pool3d indices [2, 2, 3, 4, 3]
const D fractional_max_pool3d_indices{0, 41, 39, 20, 21, 19, 61, 61, 19, 61, 61, 59, 81, 81, 83, 81, 81, 123, 121,
    122, 123, 101, 101, 103, 141, 142, 183, 161, 162, 163, 161, 162, 203, 161, 162, 203, 35, 12, 13, 11, 12, 13, 55,
    12, 13, 55, 32, 33, 115, 116, 74, 115, 116, 114, 115, 116, 94, 135, 136, 94, 175, 176, 154, 155, 156, 154, 155,
    196, 154, 195, 196, 174, 46, 47, 4, 46, 47, 48, 46, 47, 48, 26, 67, 68, 106, 107, 108, 86, 87, 88, 86, 127, 128,
    126, 127, 128, 146, 188, 188, 146, 188, 188, 190, 188, 188, 166, 168, 168, 40, 37, 39, 40, 17, 19, 20, 17, 59,
    60, 61, 59, 80, 81, 79, 120, 121, 79, 120, 121, 119, 100, 101, 99, 140, 181, 179, 181, 181, 159, 160, 161, 159,
    201, 201, 203};
// s2 [2, 3, 2]
const D s2{0.1984706615, 0.5390924167, 0.8067505423, 0.9652187667, 0.993049159, 0.8864750063, 0.6599206201,
    0.3440490738, 0.01838790063, 0.378336159, 0.687078393, 0.9028277898};
// s3 [2, 2, 3]
const D s3{0.2952246865, 0.6511819373, 0.8992003417, 0.9981687773, 0.931682399, 0.7107618794, 0.3720266404,
    0.02837512236, 0.4240734715, 0.7494780999, 0.9506504718, 0.9942445859};
// fractional_max_pool2d float32 indices [2, 3, 4, 5]
const D fractional_max_pool2d_float32_indices{2, 3, 3, 3, 15, 26, 27, 27, 27, 29, 40, 41, 36, 37, 39, 64, 65, 60, 61,
    62, 2, 2, 2, 3, 14, 26, 26, 26, 27, 23, 40, 35, 36, 37, 38, 64, 59, 60, 61, 61, 1, 1, 2, 13, 13, 25, 25, 26, 27,
    23, 34, 35, 36, 37, 37, 58, 59, 60, 60, 61, 0, 12, 12, 12, 13, 24, 36, 36, 36, 37, 48, 50, 45, 46, 47, 58, 60,
    60, 60, 71, 0, 11, 11, 11, 13, 24, 35, 35, 35, 37, 48, 49, 44, 45, 47, 58, 59, 59, 59, 71, 10, 10, 11, 12, 13,
    24, 20, 21, 22, 22, 34, 34, 35, 46, 46, 58, 58, 69, 70, 70};
// nan max_pool3d k2 s1 indices [1, 1, 2, 3, 4]
const D nan_max_pool3d_k2_s1_indices{0, 27, 8, 8, 26, 27, 33, 33, 15, 32, 33, 33, 20, 27, 27, 28, 46, 52, 33, 33, 51,
    52, 33, 33};
// nan adaptive_max_pool3d 2 indices [1, 1, 2, 2, 2]
const D nan_adaptive_max_pool3d_2_indices{0, 8, 15, 33, 27, 27, 52, 33};
// nan max_pool2d k2 ceil indices [1, 3, 2, 3]
const D nan_max_pool2d_k2_ceil_indices{0, 8, 9, 15, 13, 14, 0, 7, 9, 11, 13, 19, 6, 7, 4, 11, 18, 19};
// max_pool2d k2 ceil values [1, 2, 3, 4]
const D max_pool2d_k2_ceil_values{0.5240443417, 0.8956986857, 0.9958808445, 0.7965654722, 0.9964756147, 0.7924271699,
    0.6793046521, 0.8987080958, -0.8047309093, -0.8895552187, -0.3488751901, 0.01362896368, 0.6842898458,
    0.9970241088, 0.9574299116, 0.5123880037, 0.9554405264, 0.5065240063, 0.9046015706, 0.9975263011, -0.9684294131,
    -0.6539101627, 0.02725539568, 0.3868920435};
// max_pool2d k2 ceil indices [1, 2, 3, 4]
const D max_pool2d_k2_ceil_indices{7, 3, 4, 6, 21, 23, 19, 20, 28, 31, 33, 34, 1, 3, 4, 6, 21, 23, 19, 20, 28, 31,
    33, 34};
// max_pool3d k2 ceil values [1, 2, 2, 3, 3]
const D max_pool3d_k2_ceil_values{0.9958808445, 0.9865851128, 0.9978215791, 0.2778859258, -0.1774624248,
    -0.2728657953, 0.1825991346, 0.6001026165, 0.892847762, 0.9999743176, 0.9752752764, 0.775788193, 0.03725015134,
    0.4770180858, 0.817616343, 0.9882362465, 0.9970781712, 0.9967734946, 0.5432756692, 0.1140849451, -0.3388234692,
    0.9553636228, 0.9975574189, 0.9999946302, 0.9729140543, 0.7691558575, 0.405494, -0.2527122356, 0.203094781,
    0.6166794071, 0.9962260044, 0.9999058656, 0.9897795855, 0.1037030226, -0.3486311223, -0.7284865984};
// max_pool3d k2 ceil indices [1, 2, 2, 3, 3]
const D max_pool3d_k2_ceil_indices{6, 33, 34, 12, 14, 53, 55, 57, 59, 61, 62, 64, 109, 111, 113, 115, 116, 88, 0, 2,
    4, 49, 50, 23, 24, 26, 28, 97, 99, 101, 78, 105, 77, 84, 86, 88};
// adaptive_max_pool2d ties (2,2) values [1, 1, 2, 2]
const D adaptive_max_pool2d_ties_2_2_values{3, 3, 2, 2};
// adaptive_max_pool2d ties (2,2) indices [1, 1, 2, 2]
const D adaptive_max_pool2d_ties_2_2_indices{1, 2, 8, 10};
// adaptive_max_pool3d (2,5,3) values [1, 2, 2, 5, 3]
const D adaptive_max_pool3d_2_5_3_values{0.8115585421, 0.9865851128, 0.9978215791, 0.9958808445, 0.932615014,
    0.6754631806, 0.2778859258, -0.1774624248, -0.5959172238, -0.8904838086, -0.6716032893, -0.2728657953,
    0.1825991346, 0.6001026165, 0.892847762, 0.9999743176, 0.9752752764, 0.775788193, 0.4150186194, -0.03203125217,
    -0.4724219864, -0.8145985494, -0.7724825579, -0.4102619035, 0.03725015134, 0.4770180858, 0.817616343,
    0.9882362465, 0.9970781712, 0.9967734946, 0.5432756692, 0.1140849451, -0.3388234692, -0.7212921767,
    -0.8568414112, -0.5388840958, -0.1088954687, 0.3437319825, 0.7248992714, 0.9553636228, 0.9975574189,
    0.9999946302, 0.9729140543, 0.7691558575, 0.405494, -0.612560153, -0.899793282, -0.6559816407, -0.2527122356,
    0.203094781, 0.6166794071, 0.9020594648, 0.9999058656, 0.9897795855, 0.9962260044, 0.8541373613, 0.5344778272,
    0.1037030226, -0.3486311223, -0.7284865984};
// adaptive_max_pool3d (2,5,3) indices [1, 2, 2, 5, 3]
const D adaptive_max_pool3d_2_5_3_indices{31, 33, 34, 6, 8, 10, 12, 14, 16, 18, 51, 53, 55, 57, 59, 61, 62, 64, 66,
    68, 70, 72, 105, 107, 109, 111, 113, 115, 116, 88, 0, 2, 4, 6, 39, 41, 43, 45, 47, 49, 50, 23, 24, 26, 28, 60,
    62, 95, 97, 99, 101, 103, 105, 77, 78, 80, 82, 84, 86, 88};
// clang-format on

Tensor image(Device d) { return (arange(70, TensorOptions().dtype(kDouble)) * 0.37).sin().reshape({1, 2, 5, 7}).to(d); }
Tensor line(Device d) { return (arange(54, TensorOptions().dtype(kDouble)) * 0.61).cos().reshape({2, 3, 9}).to(d); }
Tensor volume(Device d) {
  return (arange(240, TensorOptions().dtype(kDouble)) * 0.23 + 0.1).sin().reshape({1, 2, 4, 5, 6}).to(d);
}
Tensor ties(Device d) {
  const D v{1, 3, 3, 0, 3, 1, 0, 3, 2, 2, 2, 2, 0, 2, 2, 1};
  return tensor(v, TensorOptions().dtype(kDouble)).view({1, 1, 4, 4}).to(d);
}

void expect_values(const Tensor& got, IntArrayRef shape, const D& want, double tol = 2e-9) {
  ASSERT_EQ(got.sizes(), shape);
  const D v = values(got);
  ASSERT_EQ(v.size(), want.size());
  for (size_t i = 0; i < v.size(); ++i) EXPECT_NEAR(v[i], want[i], tol) << "element " << i;
}
void expect_pool(const std::tuple<Tensor, Tensor>& got, IntArrayRef shape, const D& want_values, const D& want_indices,
                 double tol = 2e-9) {
  expect_values(std::get<0>(got), shape, want_values, tol);
  EXPECT_EQ(std::get<1>(got).scalar_type(), kLong);
  ASSERT_EQ(std::get<1>(got).sizes(), shape);
  EXPECT_EQ(values(std::get<1>(got)), want_indices);
}
}  // namespace

class PoolingMore : public testing::TestWithParam<Device> {};

TEST_P(PoolingMore, MaxPoolWithIndicesMatchesPyTorch) {
  const Device d = GetParam();
  const Tensor x = image(d);
  expect_pool(F::max_pool2d_with_indices(x, F::MaxPool2dFuncOptions(3).stride(2).padding(1)), {1, 2, 3, 4},
              max_pool2d_k3_s2_p1_values, max_pool2d_k3_s2_p1_indices);
  expect_pool(F::max_pool2d_with_indices(x, F::MaxPool2dFuncOptions(3).stride(2).ceil_mode(true)), {1, 2, 2, 3},
              max_pool2d_k3_s2_ceil_values, max_pool2d_k3_s2_ceil_indices);
  expect_pool(F::max_pool2d_with_indices(x, F::MaxPool2dFuncOptions(2).stride(1).dilation(2)), {1, 2, 3, 5},
              max_pool2d_k2_s1_d2_values, max_pool2d_k2_s1_d2_indices);
  // ties: the first maximum in row-major order, as PyTorch
  expect_pool(F::max_pool2d_with_indices(ties(d), F::MaxPool2dFuncOptions(2).stride(1)), {1, 1, 3, 3},
              max_pool2d_ties_k2_s1_values, max_pool2d_ties_k2_s1_indices);
  const Tensor l = line(d);
  expect_pool(F::max_pool1d_with_indices(l, F::MaxPool1dFuncOptions(3).stride(2).padding(1)), {2, 3, 5},
              max_pool1d_k3_s2_p1_values, max_pool1d_k3_s2_p1_indices);
  expect_pool(F::max_pool1d_with_indices(l, F::MaxPool1dFuncOptions(2).ceil_mode(true)), {2, 3, 5},
              max_pool1d_k2_ceil_values, max_pool1d_k2_ceil_indices);
  const Tensor v = volume(d);
  expect_pool(F::max_pool3d_with_indices(v, F::MaxPool3dFuncOptions(3).stride(2).padding(1)), {1, 2, 2, 3, 3},
              max_pool3d_k3_s2_p1_values, max_pool3d_k3_s2_p1_indices);
  expect_pool(F::max_pool3d_with_indices(
                  v, F::MaxPool3dFuncOptions(2).stride({2, 1, 2}).dilation({1, 2, 1}).ceil_mode(true)),
              {1, 2, 2, 3, 3}, max_pool3d_k2_s_2_1_2_d_1_2_1_ceil_values, max_pool3d_k2_s_2_1_2_d_1_2_1_ceil_indices);
  // ceil_mode adding a window in H or W
  expect_pool(F::max_pool2d_with_indices(x, F::MaxPool2dFuncOptions(2).ceil_mode(true)), {1, 2, 3, 4},
              max_pool2d_k2_ceil_values, max_pool2d_k2_ceil_indices);
  expect_pool(F::max_pool3d_with_indices(v, F::MaxPool3dFuncOptions(2).ceil_mode(true)), {1, 2, 2, 3, 3},
              max_pool3d_k2_ceil_values, max_pool3d_k2_ceil_indices);
  // the values are the plain pools' values; unbatched inputs; the modules
  const auto o2 = F::MaxPool2dFuncOptions(3).stride(2).padding(1);
  EXPECT_TRUE(std::get<0>(F::max_pool2d_with_indices(x, o2)).equal(F::max_pool2d(x, o2)));
  const auto o3 = F::MaxPool3dFuncOptions(3).stride(2).padding(1);
  EXPECT_TRUE(std::get<0>(F::max_pool3d_with_indices(v, o3)).equal(F::max_pool3d(v, o3)));
  auto [uv, ui] = F::max_pool2d_with_indices(x[0], o2);
  EXPECT_EQ(ui.sizes(), IntArrayRef({2, 3, 4}));
  EXPECT_EQ(values(ui), max_pool2d_k3_s2_p1_indices);
  auto [mv, mi] = nn::MaxPool2d(o2)->forward_with_indices(x);
  EXPECT_EQ(values(mi), max_pool2d_k3_s2_p1_indices);
  auto [m1v, m1i] = nn::MaxPool1d(nn::MaxPool1dOptions(3).stride(2).padding(1))->forward_with_indices(l);
  EXPECT_EQ(values(m1i), max_pool1d_k3_s2_p1_indices);
  auto [m3v, m3i] = nn::MaxPool3d(o3)->forward_with_indices(v);
  EXPECT_EQ(values(m3i), max_pool3d_k3_s2_p1_indices);
  // a float32 input pools to the same positions
  EXPECT_EQ(values(std::get<1>(F::max_pool2d_with_indices(x.to(kFloat), o2))), max_pool2d_k3_s2_p1_indices);
  // all -inf: the first position inside the input, never one in the padding
  const Tensor inf = full({1, 1, 3, 3}, -std::numeric_limits<double>::infinity(), TensorOptions().dtype(kDouble)).to(d);
  EXPECT_EQ(values(std::get<1>(F::max_pool2d_with_indices(inf, F::MaxPool2dFuncOptions(2).padding(1)))),
            (D{0, 1, 3, 4}));
  EXPECT_EQ(values(std::get<1>(F::max_pool3d_with_indices(inf.unsqueeze(0), F::MaxPool3dFuncOptions(2).padding(1)))),
            (D{0, 1, 3, 4}));
}

TEST_P(PoolingMore, AdaptiveMaxPoolWithIndicesMatchesPyTorch) {
  const Device d = GetParam();
  expect_pool(F::adaptive_max_pool1d_with_indices(line(d), F::AdaptiveMaxPool1dFuncOptions(4)), {2, 3, 4},
              adaptive_max_pool1d_4_values, adaptive_max_pool1d_4_indices);
  expect_pool(F::adaptive_max_pool2d_with_indices(image(d), F::AdaptiveMaxPool2dFuncOptions({3, 4})), {1, 2, 3, 4},
              adaptive_max_pool2d_3_4_values, adaptive_max_pool2d_3_4_indices);
  expect_pool(F::adaptive_max_pool2d_with_indices(ties(d), F::AdaptiveMaxPool2dFuncOptions(3)), {1, 1, 3, 3},
              adaptive_max_pool2d_ties_3_3_values, adaptive_max_pool2d_ties_3_3_indices);
  const Tensor v = volume(d);
  expect_pool(F::adaptive_max_pool3d_with_indices(v, F::AdaptiveMaxPool3dFuncOptions({3, 2, 4})), {1, 2, 3, 2, 4},
              adaptive_max_pool3d_3_2_4_values, adaptive_max_pool3d_3_2_4_indices);
  expect_values(F::adaptive_max_pool3d(v, {3, 2, 4}), {1, 2, 3, 2, 4}, adaptive_max_pool3d_3_2_4_values);
  // equal cells (a plain pool of one cell's size)
  expect_pool(F::adaptive_max_pool2d_with_indices(ties(d), F::AdaptiveMaxPool2dFuncOptions(2)), {1, 1, 2, 2},
              adaptive_max_pool2d_ties_2_2_values, adaptive_max_pool2d_ties_2_2_indices);
  expect_pool(F::adaptive_max_pool3d_with_indices(v, F::AdaptiveMaxPool3dFuncOptions({2, 5, 3})), {1, 2, 2, 5, 3},
              adaptive_max_pool3d_2_5_3_values, adaptive_max_pool3d_2_5_3_indices);
  expect_values(nn::AdaptiveMaxPool3d(nn::AdaptiveMaxPool3dOptions({3, 2, 4}))(v[0]), {2, 3, 2, 4},
                adaptive_max_pool3d_3_2_4_values);
  // the existing values agree with the new ones; the modules
  EXPECT_TRUE(std::get<0>(F::adaptive_max_pool2d_with_indices(image(d), F::AdaptiveMaxPool2dFuncOptions({3, 4})))
                  .equal(F::adaptive_max_pool2d(image(d), {3, 4})));
  EXPECT_EQ(values(std::get<1>(nn::AdaptiveMaxPool1d(4)->forward_with_indices(line(d)))),
            adaptive_max_pool1d_4_indices);
  EXPECT_EQ(values(std::get<1>(nn::AdaptiveMaxPool2d(nn::AdaptiveMaxPool2dOptions({3, 4}))->forward_with_indices(
                image(d)))),
            adaptive_max_pool2d_3_4_indices);
  nn::AdaptiveMaxPool3d m3(nn::AdaptiveMaxPool3dOptions({3, 2, 4}));
  EXPECT_EQ(values(std::get<1>(m3->forward_with_indices(v))),
            adaptive_max_pool3d_3_2_4_indices);
}

TEST_P(PoolingMore, NaNWinsAsInPyTorch) {
  const Device d = GetParam();
  Tensor x = (arange(60, TensorOptions().dtype(kDouble))).sin().reshape({1, 1, 3, 4, 5});
  x.index_put_({0, 0, 1, 2, 3}, std::nan(""));
  x.index_put_({0, 0, 0, 0, 0}, std::nan(""));
  x = x.to(d);
  auto [v3, i3] = F::max_pool3d_with_indices(x, F::MaxPool3dFuncOptions(2).stride(1));
  EXPECT_EQ(values(i3), nan_max_pool3d_k2_s1_indices);
  EXPECT_TRUE(std::isnan(values(v3)[0]));
  EXPECT_EQ(values(std::get<1>(F::adaptive_max_pool3d_with_indices(x, F::AdaptiveMaxPool3dFuncOptions(2)))),
            nan_adaptive_max_pool3d_2_indices);
  EXPECT_EQ(values(std::get<1>(F::max_pool2d_with_indices(x[0], F::MaxPool2dFuncOptions(2).ceil_mode(true)))),
            nan_max_pool2d_k2_ceil_indices);
}

TEST_P(PoolingMore, MaxPoolWithIndicesGradients) {
  const Device d = GetParam();
  gradcheck([](const V& x) {
    return std::get<0>(F::max_pool2d_with_indices(x[0], F::MaxPool2dFuncOptions(3).stride(2).padding(1)));
  }, {sample({1, 1, 5, 6})}, d);
  gradcheck([](const V& x) {
    return std::get<0>(F::max_pool2d_with_indices(x[0], F::MaxPool2dFuncOptions(3).stride(2).ceil_mode(true)));
  }, {sample({1, 1, 5, 6})}, d);
  gradcheck([](const V& x) {
    return std::get<0>(F::max_pool1d_with_indices(x[0], F::MaxPool1dFuncOptions(2).stride(1).dilation(2)));
  }, {sample({2, 7})}, d);
}

TEST_P(PoolingMore, MaxPool3dAndAdaptiveWithIndicesGradients) {
  const Device d = GetParam();
  gradcheck([](const V& x) {
    return std::get<0>(
        F::max_pool3d_with_indices(x[0], F::MaxPool3dFuncOptions(2).stride({2, 1, 2}).padding(1).ceil_mode(true)));
  }, {sample({1, 1, 2, 3, 3})}, d);
  gradcheck([](const V& x) {
    return std::get<0>(F::max_pool3d_with_indices(x[0], F::MaxPool3dFuncOptions(2).ceil_mode(true)));
  }, {sample({1, 1, 3, 3, 3})}, d);
  gradcheck([](const V& x) { return F::adaptive_max_pool3d(x[0], {2, 2, 2}); }, {sample({1, 1, 3, 3, 3})}, d);
  gradcheck([](const V& x) {
    return std::get<0>(F::adaptive_max_pool2d_with_indices(x[0], F::AdaptiveMaxPool2dFuncOptions({2, 3})));
  }, {sample({2, 5, 4})}, d);
  // ties: the gradient goes to the position the indices name
  const Tensor t = ties(d).requires_grad_();
  auto [tv, ti] = F::max_pool3d_with_indices(t.unsqueeze(0), F::MaxPool3dFuncOptions({1, 2, 2}).stride(1));
  tv.sum().backward();
  D want(16, 0.0);
  for (double i : values(ti)) want[static_cast<size_t>(i)] += 1;
  EXPECT_EQ(values(t.grad()), want);
}

TEST_P(PoolingMore, MaxUnpoolMatchesPyTorch) {
  const Device d = GetParam();
  auto [v2, i2] = F::max_pool2d_with_indices(image(d), F::MaxPool2dFuncOptions(2));
  expect_values(F::max_unpool2d(v2, i2, F::MaxUnpool2dFuncOptions(2)), {1, 2, 4, 6}, max_unpool2d_k2);
  expect_values(F::max_unpool2d(v2, i2, F::MaxUnpool2dFuncOptions(2).output_size(std::vector<int64_t>{5, 7})),
                {1, 2, 5, 7}, max_unpool2d_k2_output_size_5_7);
  expect_values(F::max_unpool2d(v2, i2, F::MaxUnpool2dFuncOptions(2).output_size(std::vector<int64_t>{1, 2, 5, 7})),
                {1, 2, 5, 7}, max_unpool2d_k2_output_size_5_7);
  expect_values(nn::MaxUnpool2d(2)(v2, i2, std::vector<int64_t>{5, 7}), {1, 2, 5, 7}, max_unpool2d_k2_output_size_5_7);
  expect_values(nn::MaxUnpool2d(2)(v2[0], i2[0]), {2, 4, 6}, max_unpool2d_k2);
  auto [v1, i1] = F::max_pool1d_with_indices(line(d), F::MaxPool1dFuncOptions(3).stride(2).padding(1));
  expect_values(F::max_unpool1d(v1, i1, F::MaxUnpool1dFuncOptions(3).stride(2).padding(1)), {2, 3, 9},
                max_unpool1d_k3_s2_p1);
  expect_values(nn::MaxUnpool1d(nn::MaxUnpool1dOptions(3).stride(2).padding(1))(v1, i1), {2, 3, 9},
                max_unpool1d_k3_s2_p1);
  auto [v3, i3] = F::max_pool3d_with_indices(volume(d), F::MaxPool3dFuncOptions(2));
  const Tensor u3 =
      F::max_unpool3d(v3, i3, F::MaxUnpool3dFuncOptions(2).output_size(std::vector<int64_t>{1, 2, 5, 5, 7}));
  ASSERT_EQ(u3.sizes(), IntArrayRef({1, 2, 5, 5, 7}));
  const Tensor flat = u3.flatten().cpu();
  const Tensor nz = flat.ne(0.0).nonzero().flatten();
  EXPECT_EQ(values(nz), max_unpool3d_nonzero_positions);
  expect_values(flat.index_select(0, nz), {24}, max_unpool3d_nonzero_values);
  EXPECT_TRUE(nn::MaxUnpool3d(2)(v3, i3, std::vector<int64_t>{5, 5, 7}).equal(u3));
  // the gradient: each output gradient back at its input's position
  gradcheck([&](const V& x) { return F::max_unpool2d(x[0], i2, F::MaxUnpool2dFuncOptions(2)); },
            {sample({1, 2, 2, 3})}, d);
  gradcheck([&](const V& x) {
    return F::max_unpool3d(x[0], i3, F::MaxUnpool3dFuncOptions(2).output_size(std::vector<int64_t>{5, 5, 7}));
  }, {sample({1, 2, 2, 2, 3})}, d);
}

TEST_P(PoolingMore, MaxUnpoolMessages) {
  const Device d = GetParam();
  auto [v, i] = F::max_pool2d_with_indices(image(d), F::MaxPool2dFuncOptions(2));
  EXPECT_THROW_MSG(F::max_unpool2d(v, i * 5, F::MaxUnpool2dFuncOptions(2)), Error,
                   "[max_unpool2d] Found an invalid max index: 35 (output volumes are of size 4x6).");
  EXPECT_THROW_MSG(F::max_unpool2d(v, i - 100, F::MaxUnpool2dFuncOptions(2)), Error,
                   "[max_unpool2d] Found an invalid max index: -93 (output volumes are of size 4x6).");
  EXPECT_THROW_MSG(F::max_unpool2d(v, i, F::MaxUnpool2dFuncOptions(2).output_size(std::vector<int64_t>{9, 9})), Error,
                   "[max_unpool2d] invalid output_size \"[9, 9]\" (dim 0 must be between 2 and 6).");
  EXPECT_THROW_MSG(F::max_unpool2d(v, i, F::MaxUnpool2dFuncOptions(2).output_size(std::vector<int64_t>{1, 1, 2, 2, 2})),
                   Error, "[max_unpool2d] output_size should have 2 or 4 elements, but it has 5.");
  EXPECT_THROW_MSG(F::max_unpool2d(v, i.to(kInt), F::MaxUnpool2dFuncOptions(2)), Error,
                   "[max_unpool2d] elements in indices should be type int64 but got: Int.");
  EXPECT_THROW_MSG(F::max_unpool2d(v, i.narrow(3, 0, 1), F::MaxUnpool2dFuncOptions(2)), Error,
                   "[max_unpool2d] Expected shape of indices to be same as that of the input tensor ([1, 2, 2, 3]) "
                   "but got indices tensor with shape: [1, 2, 2, 1].");
  EXPECT_THROW_MSG(F::max_unpool3d(v[0], i[0], F::MaxUnpool3dFuncOptions(2)), Error,
                   "[max_unpool3d] expected a 4-D (unbatched) or 5-D (batched) input, got [2, 2, 3].");
  EXPECT_THROW_MSG(F::max_unpool1d(v[0][0], i[0][0] + 7, F::MaxUnpool1dFuncOptions(2)), Error,
                   "[max_unpool1d] Found an invalid max index: 14 (output volumes are of size 6).");
  if (!d.is_cpu()) EXPECT_THROW(F::max_unpool2d(v, i.cpu(), F::MaxUnpool2dFuncOptions(2)), DeviceMismatchError);
}

TEST_P(PoolingMore, ConvTranspose3dMatchesPyTorch) {
  const Device d = GetParam();
  const TensorOptions o = TensorOptions().dtype(kDouble);
  const Tensor x = (arange(144, o) * 0.41).sin().reshape({2, 4, 3, 2, 3}).to(d).requires_grad_();
  const Tensor w = (arange(144, o) * 0.29).cos().reshape({4, 3, 2, 3, 2}).to(d);
  const Tensor b = tensor(D{0.5, -0.25, 0.125, 1.0, -1.5, 0.75}, o).to(d);
  const Tensor y = F::conv_transpose3d(x, w,
                                       F::ConvTranspose3dFuncOptions()
                                           .bias(b)
                                           .stride({2, 1, 2})
                                           .padding({1, 0, 1})
                                           .output_padding({1, 0, 0})
                                           .groups(2)
                                           .dilation({1, 2, 1}));
  ASSERT_EQ(y.sizes(), IntArrayRef({2, 6, 5, 6, 4}));
  expect_values(y.sum({2, 3, 4}), {2, 6}, conv_transpose3d_channel_sums, 1e-7);
  expect_values(y[1][4][2], {6, 4}, conv_transpose3d_y_1_4_2);
  expect_values(y.select(0, 0).select(1, 4).select(1, 5).select(1, 3), {6}, conv_transpose3d_y_0_4_5_3);
  (y * (arange(y.numel(), o) * 0.1).sin().reshape(y.sizes()).to(d)).sum().backward();
  expect_values(x.grad().sum({2, 3, 4}), {2, 4}, conv_transpose3d_grad_x_sums, 1e-7);
  const Tensor x1 = x.detach().narrow(0, 0, 1).narrow(1, 0, 2);
  expect_values(F::conv_transpose3d(x1, w.narrow(0, 0, 2).narrow(3, 0, 2)), {1, 3, 4, 3, 4}, conv_transpose3d_plain);
  expect_values(F::conv_transpose3d(x1[0], w.narrow(0, 0, 2).narrow(3, 0, 2)), {3, 4, 3, 4}, conv_transpose3d_plain);
  gradcheck([](const V& a) {
    const auto o = F::ConvTranspose3dFuncOptions().bias(a[2]).stride({2, 1, 1}).padding({0, 1, 0}).groups(2);
    return F::conv_transpose3d(a[0], a[1], o);
  }, {sample({1, 2, 2, 2, 2}), sample({2, 1, 2, 3, 2}, 0.3), sample({2}, 0.7)}, d);
}

TEST_P(PoolingMore, ConvTranspose3dModule) {
  const Device d = GetParam();
  nn::ConvTranspose3d m(nn::ConvTranspose3dOptions(4, 6, {2, 3, 2}).stride({2, 1, 2}).padding({1, 0, 1}).groups(2)
                            .dilation({1, 2, 1}));
  m->to(d, kDouble);
  ASSERT_EQ(m->weight.sizes(), IntArrayRef({4, 3, 2, 3, 2}));
  ASSERT_EQ(m->bias.sizes(), IntArrayRef({6}));
  // PyTorch's initialisation: weight and bias within 1/sqrt(fan_in), fan_in = 3 * 2 * 3 * 2
  EXPECT_LE(m->weight.abs().max().item<double>(), 1.0 / std::sqrt(36.0) + 1e-12);
  EXPECT_LE(m->bias.abs().max().item<double>(), 1.0 / std::sqrt(36.0) + 1e-12);
  const Tensor x = (arange(144, TensorOptions().dtype(kDouble)) * 0.41).sin().reshape({2, 4, 3, 2, 3}).to(d);
  const Tensor want = F::conv_transpose3d(x, m->weight,
                                          F::ConvTranspose3dFuncOptions()
                                              .bias(m->bias)
                                              .stride({2, 1, 2})
                                              .padding({1, 0, 1})
                                              .output_padding({1, 0, 0})
                                              .groups(2)
                                              .dilation({1, 2, 1}));
  EXPECT_TRUE(m(x, std::vector<int64_t>{5, 6, 4}).equal(want));
  EXPECT_TRUE(m(x, std::vector<int64_t>{2, 6, 5, 6, 4}).equal(want));
  EXPECT_EQ(m(x).sizes(), IntArrayRef({2, 6, 4, 6, 4}));
  EXPECT_THROW_MSG(m(x, std::vector<int64_t>{7, 6, 4}), Error,
                   "ConvTranspose3d: requested an output size of 7x6x4, but valid sizes range from 4 to 5 in dim 0");
  std::ostringstream os;
  os << *m;
  EXPECT_EQ(os.str(), "locus::nn::ConvTranspose3d(4, 6, kernel_size=[2, 3, 2], stride=[2, 1, 2], padding=[1, 0, 1], "
                      "dilation=[1, 2, 1], groups=2)");
  EXPECT_THROW_MSG(F::conv_transpose3d(x, m->weight.narrow(0, 0, 2)), Error,
                   "[conv_transpose3d] Given transposed=1, weight of size [2, 3, 2, 3, 2], expected "
                   "input[2, 4, 3, 2, 3] to have 2 channels, but got 4 channels instead.");
  EXPECT_THROW_MSG(F::conv_transpose3d(x, m->weight[0]), Error,
                   "[conv_transpose3d] expected a 5-D weight [in_channels, out_channels/groups, kd, kh, kw], got "
                   "[3, 2, 3, 2].");
  EXPECT_THROW_MSG(F::conv_transpose3d(x, m->weight, F::ConvTranspose3dFuncOptions().output_padding({0, 0, 1})), Error,
                   "[conv_transpose3d] output padding must be smaller than either stride or dilation, but got "
                   "output_padding: (0, 0, 1) stride: (1, 1, 1) dilation: (1, 1, 1).");
  EXPECT_THROW_MSG(F::conv_transpose3d(x, m->weight, F::ConvTranspose3dFuncOptions().bias(m->bias.narrow(0, 0, 2))),
                   Error, "[conv_transpose3d] expected a bias of 3 elements (out_channels), got [2].");
  EXPECT_THROW_MSG(nn::ConvTranspose3d(nn::ConvTranspose3dOptions(4, 6, 2).groups(4)), Error,
                   "ConvTranspose3d: in_channels (4) and out_channels (6) must be divisible by groups (4).");
  if (!d.is_cpu()) EXPECT_THROW(F::conv_transpose3d(x, m->weight.cpu()), DeviceMismatchError);
}

TEST_P(PoolingMore, LPPoolMatchesPyTorch) {
  const Device d = GetParam();
  const Tensor x = image(d), l = line(d);
  expect_values(F::lp_pool2d(x, F::LPPool2dFuncOptions(2, {3, 2}).stride({2, 1})), {1, 2, 2, 6},
                lp_pool2d_p2_k_3_2_s_2_1);
  expect_values(F::lp_pool2d(x.abs() + 0.1, F::LPPool2dFuncOptions(3, 2).ceil_mode(true)), {1, 2, 3, 4},
                lp_pool2d_p3_k2_ceil);
  expect_values(F::lp_pool1d(l, F::LPPool1dFuncOptions(2, 3).stride(2)), {2, 3, 4}, lp_pool1d_p2_k3_s2);
  expect_values(nn::LPPool1d(nn::LPPool1dOptions(1.5, 2))(l.abs()), {2, 3, 4}, lp_pool1d_p1_5_k2);
  expect_values(nn::LPPool1d(1.5, 2)(l.abs()), {2, 3, 4}, lp_pool1d_p1_5_k2);
  expect_values(nn::LPPool2d(nn::LPPool2dOptions(2, {3, 2}).stride({2, 1}))(x), {1, 2, 2, 6},
                lp_pool2d_p2_k_3_2_s_2_1);
  gradcheck([](const V& a) { return F::lp_pool2d(a[0], F::LPPool2dFuncOptions(2, {3, 2}).stride({2, 1})); },
            {sample({1, 2, 5, 4})}, d);
  gradcheck([](const V& a) { return F::lp_pool1d(a[0].abs() + 0.1, F::LPPool1dFuncOptions(1.5, 2)); },
            {sample({2, 6})}, d);
  std::ostringstream os;
  os << nn::LPPool2d(nn::LPPool2dOptions(2, {3, 2}).stride({2, 1})) << "\n"
     << nn::LPPool1d(nn::LPPool1dOptions(1.5, 3));
  EXPECT_EQ(os.str(), "locus::nn::LPPool2d(norm_type=2, kernel_size=[3, 2], stride=[2, 1], ceil_mode=false)\n"
                      "locus::nn::LPPool1d(norm_type=1.5, kernel_size=[3], stride=[3], ceil_mode=false)");
}

TEST_P(PoolingMore, FractionalMaxPoolMatchesPyTorch) {
  const Device d = GetParam();
  const TensorOptions o = TensorOptions().dtype(kDouble);
  const Tensor img = (arange(432, o) * 0.53).sin().reshape({2, 3, 9, 8}).to(d);
  const Tensor u2 = tensor(s2, o).view({2, 3, 2}).to(d);
  const auto f2 = F::FractionalMaxPool2dFuncOptions({2, 3}).output_size(ExpandingArray<2>({4, 5}));
  expect_pool(F::fractional_max_pool2d_with_indices(img, F::FractionalMaxPool2dFuncOptions(f2)._random_samples(u2)),
              {2, 3, 4, 5}, fractional_max_pool2d_k_2_3_out_4_5_values, fractional_max_pool2d_k_2_3_out_4_5_indices);
  expect_pool(F::fractional_max_pool2d_with_indices(
                  img, F::FractionalMaxPool2dFuncOptions(2).output_ratio(ExpandingArrayDouble<2>({0.5, 0.7}))
                           ._random_samples(u2)),
              {2, 3, 4, 5}, fractional_max_pool2d_k2_ratio_0_5_0_7_values,
              fractional_max_pool2d_k2_ratio_0_5_0_7_indices);
  // libtorch's std::vector spellings of output_size and output_ratio
  const auto fv = F::FractionalMaxPool2dFuncOptions({2, 3}).output_size(std::vector<int64_t>{4, 5})._random_samples(u2);
  EXPECT_TRUE(F::fractional_max_pool2d(img, fv).equal(std::get<0>(F::fractional_max_pool2d_with_indices(img, F::FractionalMaxPool2dFuncOptions(f2)._random_samples(u2)))));
  const auto fr = F::FractionalMaxPool2dFuncOptions(2).output_ratio(std::vector<double>{0.5, 0.7})._random_samples(u2);
  EXPECT_EQ(F::fractional_max_pool2d(img, fr).sizes(), IntArrayRef({2, 3, 4, 5}));
  EXPECT_THROW_MSG(F::FractionalMaxPool2dFuncOptions(2).output_size(std::vector<int64_t>{4}), Error,
                   "ExpandingArray: expected 2 values, got 1.");
  // float32: PyTorch's interval arithmetic in float
  EXPECT_EQ(values(std::get<1>(F::fractional_max_pool2d_with_indices(
                img.to(kFloat), F::FractionalMaxPool2dFuncOptions({2, 3}).output_size(ExpandingArray<2>({4, 5}))
                                    ._random_samples(u2.to(kFloat))))),
            fractional_max_pool2d_float32_indices);
  const Tensor vol = (arange(840, o) * 0.31).cos().reshape({2, 2, 6, 7, 5}).to(d);
  const Tensor u3 = tensor(s3, o).view({2, 2, 3}).to(d);
  const auto o3 =
      F::FractionalMaxPool3dFuncOptions({2, 3, 2}).output_size(ExpandingArray<3>({3, 4, 3}))._random_samples(u3);
  expect_pool(F::fractional_max_pool3d_with_indices(vol, o3), {2, 2, 3, 4, 3}, fractional_max_pool3d_values,
              fractional_max_pool3d_indices);
  expect_values(F::fractional_max_pool3d(vol, o3), {2, 2, 3, 4, 3}, fractional_max_pool3d_values);
  // the modules: a given _random_samples is a buffer
  nn::FractionalMaxPool3d m(o3);
  expect_values(m(vol), {2, 2, 3, 4, 3}, fractional_max_pool3d_values);
  EXPECT_EQ(m->named_buffers().size(), 1u);
  nn::FractionalMaxPool2d m2(nn::FractionalMaxPool2dOptions({2, 3}).output_size(ExpandingArray<2>({4, 5})));
  m2->_random_samples = u2;
  EXPECT_EQ(values(std::get<1>(m2->forward_with_indices(img))), fractional_max_pool2d_k_2_3_out_4_5_indices);
  // drawn samples: every value is the input's value at its index, within a window of the kernel's size
  auto [rv, ri] = F::fractional_max_pool2d_with_indices(
      img, F::FractionalMaxPool2dFuncOptions({2, 3}).output_size(ExpandingArray<2>({4, 5})));
  ASSERT_EQ(rv.sizes(), IntArrayRef({2, 3, 4, 5}));
  EXPECT_TRUE(img.flatten(2).gather(2, ri.flatten(2)).equal(rv.flatten(2)));
  gradcheck([&](const V& a) {
    return F::fractional_max_pool2d(a[0], F::FractionalMaxPool2dFuncOptions({2, 3})
                                              .output_size(ExpandingArray<2>({3, 3}))
                                              ._random_samples(u2.narrow(0, 0, 1).narrow(1, 0, 2)));
  }, {sample({1, 2, 5, 6})}, d);
}

TEST_P(PoolingMore, AtenFormsMatchPyTorch) {
  const Device d = GetParam();
  const Tensor x = image(d), l = line(d), v = volume(d);
  expect_pool(max_pool2d_with_indices(x, 3, 2, 1), {1, 2, 3, 4}, max_pool2d_k3_s2_p1_values,
              max_pool2d_k3_s2_p1_indices);
  expect_pool(max_pool1d_with_indices(l, 2, {}, 0, 1, /*ceil_mode=*/true), {2, 3, 5}, max_pool1d_k2_ceil_values,
              max_pool1d_k2_ceil_indices);
  expect_pool(max_pool3d_with_indices(v, 2, {2, 1, 2}, 0, {1, 2, 1}, true), {1, 2, 2, 3, 3},
              max_pool3d_k2_s_2_1_2_d_1_2_1_ceil_values, max_pool3d_k2_s_2_1_2_d_1_2_1_ceil_indices);
  expect_pool(adaptive_max_pool1d(l, 4), {2, 3, 4}, adaptive_max_pool1d_4_values, adaptive_max_pool1d_4_indices);
  expect_pool(adaptive_max_pool2d(x, {3, 4}), {1, 2, 3, 4}, adaptive_max_pool2d_3_4_values,
              adaptive_max_pool2d_3_4_indices);
  expect_pool(adaptive_max_pool3d(v, {3, 2, 4}), {1, 2, 3, 2, 4}, adaptive_max_pool3d_3_2_4_values,
              adaptive_max_pool3d_3_2_4_indices);
  auto [v2, i2] = max_pool2d_with_indices(x, 2);
  expect_values(max_unpool2d(v2, i2, {5, 7}), {1, 2, 5, 7}, max_unpool2d_k2_output_size_5_7);
  auto [v3, i3] = max_pool3d_with_indices(v, 2);
  const auto u3 = F::MaxUnpool3dFuncOptions(2).output_size(std::vector<int64_t>{5, 5, 7});
  EXPECT_TRUE(max_unpool3d(v3, i3, {5, 5, 7}, 2, 0).equal(F::max_unpool3d(v3, i3, u3)));
  const TensorOptions o = TensorOptions().dtype(kDouble);
  const Tensor cx = (arange(144, o) * 0.41).sin().reshape({2, 4, 3, 2, 3}).to(d);
  const Tensor cw = (arange(144, o) * 0.29).cos().reshape({4, 3, 2, 3, 2}).to(d);
  const Tensor cb = tensor(D{0.5, -0.25, 0.125, 1.0, -1.5, 0.75}, o).to(d);
  expect_values(conv_transpose3d(cx, cw, cb, {2, 1, 2}, {1, 0, 1}, {1, 0, 0}, 2, {1, 2, 1}).sum({2, 3, 4}), {2, 6},
                conv_transpose3d_channel_sums, 1e-7);
  const Tensor img = (arange(432, o) * 0.53).sin().reshape({2, 3, 9, 8}).to(d);
  expect_pool(fractional_max_pool2d(img, {2, 3}, {4, 5}, tensor(s2, o).view({2, 3, 2}).to(d)), {2, 3, 4, 5},
              fractional_max_pool2d_k_2_3_out_4_5_values, fractional_max_pool2d_k_2_3_out_4_5_indices);
  const Tensor vol = (arange(840, o) * 0.31).cos().reshape({2, 2, 6, 7, 5}).to(d);
  expect_pool(fractional_max_pool3d(vol, {2, 3, 2}, {3, 4, 3}, tensor(s3, o).view({2, 2, 3}).to(d)), {2, 2, 3, 4, 3},
              fractional_max_pool3d_values, fractional_max_pool3d_indices);
  EXPECT_THROW_MSG(max_unpool2d(v2, i2, {1, 5, 7}), Error,
                   "[max_unpool2d] There should be exactly two elements (height, width) in output_size, but got 3 "
                   "elements.");
  EXPECT_THROW_MSG(max_pool2d_with_indices(x, {1, 2, 3}), Error,
                   "[max_pool2d_with_indices] kernel_size must have 1 or 2 values, got 3 ([1, 2, 3]).");
}

TEST_P(PoolingMore, Messages) {
  const Device d = GetParam();
  const Tensor x = image(d);
  EXPECT_THROW_MSG(F::max_pool3d_with_indices(line(d), F::MaxPool3dFuncOptions(2)), Error,
                   "[max_pool3d_with_indices] expected a 4-D (unbatched) or 5-D (batched) input, got [2, 3, 9].");
  EXPECT_THROW_MSG(F::max_pool2d_with_indices(x, F::MaxPool2dFuncOptions(2).padding(2)), Error,
                   "[max_pool2d_with_indices] padding (2, 2) must be at most half of kernel_size (2, 2) in each dim");
  EXPECT_THROW_MSG(F::max_pool1d_with_indices(line(d), F::MaxPool1dFuncOptions(12)), Error,
                   "[max_pool1d_with_indices] the window does not fit the padded input [2, 3, 9].");
  EXPECT_THROW_MSG(F::adaptive_max_pool3d(volume(d), {2, 0, 2}), Error,
                   "[adaptive_max_pool3d] output_size must be positive, got 2, 0, 2.");
  EXPECT_THROW_MSG(F::fractional_max_pool2d(x, F::FractionalMaxPool2dFuncOptions(2)), Error,
                   "[fractional_max_pool2d] requires specifying either an output_size or an output_ratio.");
  EXPECT_THROW_MSG(F::fractional_max_pool2d(x, F::FractionalMaxPool2dFuncOptions(3).output_size(ExpandingArray<2>(4))),
                   Error,
                   "[fractional_max_pool2d] pool height 3 too large relative to input height 5 (output height 4).");
  EXPECT_THROW_MSG(F::fractional_max_pool2d(x, F::FractionalMaxPool2dFuncOptions(2).output_ratio(1.5)), Error,
                   "[fractional_max_pool2d] output_ratio must be between 0 and 1, but got 1.500000.");
  EXPECT_THROW_MSG(
      F::fractional_max_pool2d(x, F::FractionalMaxPool2dFuncOptions(2).output_size(ExpandingArray<2>(2))
                                      ._random_samples(zeros({1, 2, 3}, TensorOptions().dtype(kDouble)).to(d))),
      Error, "[fractional_max_pool2d] expected _random_samples of shape [1, 2, 2], got [1, 2, 3].");
  EXPECT_THROW_MSG(nn::FractionalMaxPool2d(nn::FractionalMaxPool2dOptions(2)), Error,
                   "FractionalMaxPool2d requires specifying either an output size, or a pooling ratio.");
  std::ostringstream os;
  os << nn::MaxUnpool2d(nn::MaxUnpool2dOptions(2).stride(1)) << "\n" << nn::MaxUnpool1d(3) << "\n"
     << nn::AdaptiveMaxPool3d(nn::AdaptiveMaxPool3dOptions({1, 2, 3})) << "\n"
     << nn::FractionalMaxPool3d(nn::FractionalMaxPool3dOptions(2).output_ratio(0.5));
  EXPECT_EQ(os.str(), "locus::nn::MaxUnpool2d(kernel_size=[2, 2], stride=[1, 1], padding=[0, 0])\n"
                      "locus::nn::MaxUnpool1d(kernel_size=[3], stride=[3], padding=[0])\n"
                      "locus::nn::AdaptiveMaxPool3d(output_size=[1, 2, 3])\n"
                      "locus::nn::FractionalMaxPool3d()");
}

LOCUS_INSTANTIATE_DEVICES(PoolingMore);

}  // namespace pooling_more_test
